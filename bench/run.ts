/**
 * `npm run bench [-- GROUP ...]`: runs benchmark groups, prints ours vs reference side by side and
 * writes every figure to bench/results.json. Timings are never pass/fail: the machine is shared and
 * noisy, so each group measures ours and its reference interleaved in the same run and reports the ratio.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { api } from "./api.ts";
import { content } from "./content.ts";
import { decode } from "./decode.ts";
import { diarize } from "./diarize.ts";
import { live } from "./live.ts";
import { multipart } from "./multipart.ts";
import { pipeline } from "./pipeline.ts";
import { reliability } from "./reliability.ts";
import { roomsWithHall } from "./rooms.ts";
import { scheduler } from "./scheduler.ts";
import { soak } from "./soak.ts";
import { speakers } from "./speakers.ts";
import { sync } from "./sync.ts";
import { syncStream } from "./sync-stream.ts";
import { tiers } from "./tiers.ts";
import { truecaseGroup } from "./truecase.ts";
import type { BenchGroup, BenchResult } from "./types.ts";
import { vad } from "./vad.ts";

const GROUPS: Record<string, BenchGroup> = {
  api,
  decode,
  diarize,
  pipeline,
  sync,
  sync_stream: syncStream,
  tiers,
  live,
  rooms: roomsWithHall,
  content,
  multipart,
  reliability,
  scheduler,
  soak,
  speakers,
  vad,
  truecase: truecaseGroup,
};

function format(value: number | null): string {
  if (value === null || Number.isNaN(value)) return "-";
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

function printTable(results: BenchResult[]): void {
  const rows = results.map((r) => [
    r.name,
    format(r.ours),
    format(r.reference),
    format(r.ratio),
    r.unit,
    r.note,
  ]);
  const header = ["name", "ours", "reference", "ratio", "unit", "note"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}

async function main(args: string[]): Promise<void> {
  // `--group-option=value` arguments are read by their group (bench/vad.ts: `--vad-cases=16`)
  const names = args.filter((arg) => !arg.startsWith("--"));
  const selected = names.length > 0 ? names : Object.keys(GROUPS);
  const unknown = selected.filter((name) => !(name in GROUPS));
  if (unknown.length > 0) {
    console.error(`unknown bench group(s): ${unknown.join(", ")}; groups: ${Object.keys(GROUPS).join(", ")}`);
    process.exit(2);
  }
  const results: BenchResult[] = [];
  for (const name of selected) {
    console.error(`bench: running group ${name} ...`);
    results.push(...(await GROUPS[name]!()));
  }
  mkdirSync("bench", { recursive: true });
  writeFileSync("bench/results.json", `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  console.error("bench: figures written to bench/results.json");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
