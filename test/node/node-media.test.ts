import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quietestCut, windows } from "../../inference-node/audio/windows.ts";
import { saveToTempFile } from "../../inference-node/media/download.ts";
import { ffmpegPath } from "../../inference-node/media/ffmpeg-path.ts";
import { guardedFetch } from "../../inference-node/media/guarded-fetch.ts";
import { MediaError } from "../../inference-node/media/media-error.ts";
import { openPcm, pcmChunks, SAMPLE_RATE } from "../../inference-node/media/pcm-stream.ts";
import { parseAllowlist } from "../../protocol/url-policy.ts";
import { collectPcm } from "./live-helpers.ts";

let dir: string;
let server: Server;
let origin: string;
let allowlist: ReadonlySet<string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-node-media-"));
  server = createServer((req, res) => {
    if (req.url === "/audio.bin") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(Buffer.alloc(5000, 7));
    } else if (req.url === "/to-private") {
      res.writeHead(302, { location: "http://10.0.0.1/secret" });
      res.end();
    } else if (req.url === "/hop") {
      res.writeHead(301, { location: "/audio.bin" });
      res.end();
    } else {
      res.writeHead(404);
      res.end("missing");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  allowlist = parseAllowlist(`127.0.0.1:${port}`);
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function* fromArray(samples: Float32Array, chunk: number): AsyncGenerator<Float32Array> {
  for (let at = 0; at < samples.length; at += chunk) yield samples.subarray(at, at + chunk);
}

describe("ffmpeg decoding to 16 kHz mono PCM", () => {
  it("decodes a stereo 44.1 kHz file and reports its duration", async () => {
    const file = join(dir, "tone.mp3");
    execFileSync(ffmpegPath(), [
      "-loglevel",
      "error",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:sample_rate=44100:duration=2.5",
      "-ac",
      "2",
      "-y",
      file,
    ]);
    const source = await openPcm(file);
    const pcm = await collectPcm(source.chunks);
    expect(pcm.length / SAMPLE_RATE).toBeGreaterThan(2.4);
    expect(pcm.length / SAMPLE_RATE).toBeLessThan(2.7);
    const peak = pcm.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeGreaterThan(0.05); // lavfi sine is 1/8 full scale
    expect(peak).toBeLessThanOrEqual(1);
    expect(source.durationSec).toBeCloseTo(2.5, 0);
  });

  it("fails a file that is not media with a MediaError naming the cause", async () => {
    const file = join(dir, "noise.bin");
    writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)));
    await expect(collectPcm(pcmChunks(file))).rejects.toThrow(/cannot decode the media as audio/);
    const error = await collectPcm(pcmChunks(file)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    // the message reaches the job's owner: it names ffmpeg's cause, not where the node keeps the file
    expect(String(error)).toMatch(/Invalid data found when processing input/);
    expect(String(error)).not.toContain(dir);
  });

  it("refuses a text file, which ffmpeg reads as a `tty` animation, as unsupported media", async () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "this is not audio at all\n".repeat(50));
    const error = await collectPcm(pcmChunks(file)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe("unsupported_media");
    expect(String(error)).toMatch(/container \(tty\) is not an allowed/);
  });
});

describe("windowing", () => {
  it("cuts windows of at most 30 s at the quietest frame and loses no sample", async () => {
    const seconds = 75;
    const samples = new Float32Array(seconds * SAMPLE_RATE);
    for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin(i / 10);
    const quietAt = 27 * SAMPLE_RATE; // a 200 ms pause inside the first window's search range
    samples.fill(0, quietAt, quietAt + 0.2 * SAMPLE_RATE);
    const out = [];
    for await (const w of windows(fromArray(samples, 4321))) out.push(w);
    expect(out.map((w) => w.samples.length).reduce((a, b) => a + b, 0)).toBe(samples.length);
    for (const w of out) expect(w.samples.length).toBeLessThanOrEqual(30 * SAMPLE_RATE);
    const firstCut = out[0]!.samples.length / SAMPLE_RATE;
    expect(firstCut).toBeGreaterThan(27);
    expect(firstCut).toBeLessThan(27.2);
    expect(out[1]!.offsetSec).toBeCloseTo(firstCut, 5);
  });

  it("makes only the first window shorter when asked (a streamed transcript's first words come sooner)", async () => {
    const samples = new Float32Array(75 * SAMPLE_RATE);
    for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin(i / 10);
    const quietAt = 8 * SAMPLE_RATE; // a pause inside the first window's search range (5–10 s)
    samples.fill(0, quietAt, quietAt + 0.2 * SAMPLE_RATE);
    const out = [];
    for await (const w of windows(fromArray(samples, 4321), { firstWindowSec: 10 })) out.push(w);
    expect(out.map((w) => w.samples.length).reduce((a, b) => a + b, 0)).toBe(samples.length);
    const firstCut = out[0]!.samples.length / SAMPLE_RATE;
    expect(firstCut).toBeGreaterThan(8);
    expect(firstCut).toBeLessThan(8.2);
    // the others are whole windows again: 30 s at most, cut in their own last 5 s
    expect(out[1]!.samples.length / SAMPLE_RATE).toBeGreaterThan(25);
    for (const w of out.slice(1)) expect(w.samples.length).toBeLessThanOrEqual(30 * SAMPLE_RATE);
  });

  it("ends a window at an empty chunk (a skipped stretch), offsets still counting every sample", async () => {
    async function* withBreak(): AsyncGenerator<Float32Array> {
      yield new Float32Array(3 * SAMPLE_RATE).fill(0.1);
      yield new Float32Array(0);
      yield new Float32Array(0); // a second break in a row adds no empty window
      yield new Float32Array(2 * SAMPLE_RATE).fill(0.2);
    }
    const out = [];
    for await (const w of windows(withBreak())) out.push(w);
    expect(out.map((w) => [w.offsetSec, w.samples.length / SAMPLE_RATE])).toEqual([
      [0, 3],
      [3, 2],
    ]);
  });

  it("quietestCut picks the lowest-energy frame in range", () => {
    const s = new Float32Array(1000).fill(1);
    s.fill(0, 600, 700);
    expect(quietestCut(s, 0, 1000, 100)).toBe(650);
  });
});

describe("media download under the SSRF guard", () => {
  it("fetches an allowlisted URL, following redirects, into a temp file", async () => {
    const response = await guardedFetch(`${origin}/hop`, { allowlist });
    const media = await saveToTempFile(response, 10_000);
    expect(media.bytes).toBe(5000);
    await media.remove();
  });

  it("refuses loopback, private and metadata addresses that are not allowlisted", async () => {
    for (const url of [
      `${origin}/audio.bin`,
      "http://10.0.0.1/a.mp3",
      "http://169.254.169.254/latest/meta-data",
    ]) {
      await expect(guardedFetch(url)).rejects.toThrow(/refused/);
    }
  });

  it("refuses a redirect to a private address", async () => {
    await expect(guardedFetch(`${origin}/to-private`, { allowlist })).rejects.toThrow(
      /refused to fetch http:\/\/10\.0\.0\.1/,
    );
  });

  it("names HTTP errors and unresolvable hosts", async () => {
    await expect(guardedFetch(`${origin}/nope`, { allowlist })).rejects.toThrow(/HTTP 404/);
    await expect(guardedFetch("http://no-such-host.example.com/a.mp3")).rejects.toThrow(
      /does not resolve|cannot fetch/,
    );
  });

  it("stops a download past the size limit and leaves no file", async () => {
    const response = await guardedFetch(`${origin}/audio.bin`, { allowlist });
    await expect(saveToTempFile(response, 1000)).rejects.toThrow(/larger than/);
  });
});
