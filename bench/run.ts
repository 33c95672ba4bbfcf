/**
 * `npm run bench [-- GROUP ...]`: runs benchmark groups, prints ours vs reference side by side and
 * writes every figure to bench/results.json. Timings are never pass/fail: the machine is shared and
 * noisy, so each group measures ours and its reference interleaved in the same run and reports the ratio.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { BenchGroup, BenchResult } from "./types.ts";

/**
 * Each group's module is imported only when the group runs, so one group needs only its own
 * dependencies: `decode` runs on a GPU host that has the addon's build tools but not wrangler
 * (scripts/gpu-check.sh).
 */
const GROUPS: Record<string, () => Promise<BenchGroup>> = {
  api: async () => (await import("./api.ts")).api,
  decode: async () => (await import("./decode.ts")).decode,
  diarize: async () => (await import("./diarize.ts")).diarize,
  pipeline: async () => (await import("./pipeline.ts")).pipeline,
  sync: async () => (await import("./sync.ts")).sync,
  sync_stream: async () => (await import("./sync-stream.ts")).syncStream,
  tiers: async () => (await import("./tiers.ts")).tiers,
  live: async () => (await import("./live.ts")).live,
  rooms: async () => (await import("./rooms.ts")).roomsWithHall,
  content: async () => (await import("./content.ts")).content,
  multipart: async () => (await import("./multipart.ts")).multipart,
  reliability: async () => (await import("./reliability.ts")).reliability,
  scheduler: async () => (await import("./scheduler.ts")).scheduler,
  soak: async () => (await import("./soak.ts")).soak,
  speakers: async () => (await import("./speakers.ts")).speakers,
  vad: async () => (await import("./vad.ts")).vad,
  truecase: async () => (await import("./truecase.ts")).truecaseGroup,
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
    const group = await GROUPS[name]!();
    results.push(...(await group()));
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
