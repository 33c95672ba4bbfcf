/**
 * `npm run bench -- multipart`: our streaming multipart reader (worker/ingest/multipart.ts) against
 * @remix-run/multipart-parser on the same form: a 64 MiB file part and three text fields, delivered in
 * 64 KiB chunks as a network would (a fresh buffer each). Throughput and the peak of extra ArrayBuffer
 * memory while parsing, the two runs interleaved. Remix's parser hands out each part whole (its
 * `maxFileSize` bounds it), so its memory grows with the file; ours hands the file out as a stream.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { parseMultipartStream } from "@remix-run/multipart-parser";
import { readFormParts, readTextPart } from "../worker/ingest/multipart.ts";
import { median } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const BOUNDARY = "----voxedgeBench7MA4YWxkTrZu0gW";
const CHUNK_BYTES = 64 * 1024;
const FILE_BYTES = 64 * 1024 * 1024;
const ROUNDS = 5;
/** In the memory runs, a full GC every this many chunks, so the figure is what the parser retains. */
const GC_EVERY_CHUNKS = 16;
const encoder = new TextEncoder();

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function fileChunk(): Uint8Array {
  const chunk = new Uint8Array(CHUNK_BYTES);
  let x = 1;
  for (let i = 0; i < chunk.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    chunk[i] = x >>> 24;
  }
  return chunk;
}

/** The form as a stream of fresh 64 KiB chunks, calling `onChunk` as each is pulled. */
function formStream(template: Uint8Array, onChunk: () => void): ReadableStream<Uint8Array> {
  const head = encoder.encode(
    [
      `--${BOUNDARY}`,
      'Content-Disposition: form-data; name="language"',
      "",
      "en",
      `--${BOUNDARY}`,
      'Content-Disposition: form-data; name="model"',
      "",
      "whisper-1",
      `--${BOUNDARY}`,
      'Content-Disposition: form-data; name="file"; filename="talk.wav"',
      "Content-Type: audio/wav",
      "",
      "",
    ].join("\r\n"),
  );
  const tail = encoder.encode(
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`,
  );
  let sent = -1;
  const chunks = FILE_BYTES / CHUNK_BYTES;
  return new ReadableStream({
    pull(controller) {
      onChunk();
      if (sent === -1) controller.enqueue(head);
      else if (sent < chunks) controller.enqueue(template.slice());
      else if (sent === chunks) controller.enqueue(tail);
      else controller.close();
      sent++;
    },
  });
}

/** Wall time of one parse (no sampling in the way). */
async function timeParse(parse: (stream: ReadableStream<Uint8Array>) => Promise<number>): Promise<number> {
  gc();
  const stream = formStream(fileChunk(), () => undefined);
  const started = performance.now();
  const fileBytes = await parse(stream);
  if (fileBytes !== FILE_BYTES) throw new Error(`parsed ${fileBytes} file bytes, expected ${FILE_BYTES}`);
  return performance.now() - started;
}

/** Peak ArrayBuffer bytes the parse keeps alive over the baseline, after a full GC every few chunks. */
async function retainedPeak(parse: (stream: ReadableStream<Uint8Array>) => Promise<number>): Promise<number> {
  gc();
  const baseline = process.memoryUsage().arrayBuffers;
  let peak = 0;
  let pulled = 0;
  const stream = formStream(fileChunk(), () => {
    if (++pulled % GC_EVERY_CHUNKS !== 0) return;
    gc();
    peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
  });
  await parse(stream);
  return peak;
}

/** Ours: the file part read as a stream and dropped (as streamToR2 forwards it), text fields read. */
async function ours(stream: ReadableStream<Uint8Array>): Promise<number> {
  let fileBytes = 0;
  for await (const part of readFormParts(stream, BOUNDARY)) {
    if (part.name !== "file") {
      await readTextPart(part, 16 * 1024);
      continue;
    }
    for await (const piece of part.body) fileBytes += piece.byteLength;
  }
  return fileBytes;
}

/** Remix: every part arrives whole, within maxFileSize. */
async function remix(stream: ReadableStream<Uint8Array>): Promise<number> {
  let fileBytes = 0;
  for await (const part of parseMultipartStream(stream, {
    boundary: BOUNDARY,
    maxFileSize: FILE_BYTES,
    maxTotalSize: FILE_BYTES + 1024 * 1024,
  })) {
    if (part.name === "file") fileBytes += part.size;
  }
  return fileBytes;
}

export const multipart: BenchGroup = async () => {
  const ms = { ours: [] as number[], remix: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    ms.ours.push(await timeParse(ours));
    ms.remix.push(await timeParse(remix));
  }
  const peak = { ours: await retainedPeak(ours), remix: await retainedPeak(remix) };
  const mbPerSec = (list: number[]) => FILE_BYTES / 2 ** 20 / (median(list) / 1000);
  const mib = (bytes: number) => bytes / 2 ** 20;
  const note = `64 MiB file part in 64 KiB chunks, ${ROUNDS} interleaved rounds; reference @remix-run/multipart-parser`;
  const figures: BenchResult[] = [
    result("multipart parse throughput (median)", mbPerSec(ms.ours), mbPerSec(ms.remix), "MiB/s", note),
    result(
      "multipart retained ArrayBuffer memory (peak)",
      mib(peak.ours),
      mib(peak.remix),
      "MiB",
      `after a full GC every ${GC_EVERY_CHUNKS} chunks; remix holds each part whole`,
    ),
  ];
  return figures;
};
