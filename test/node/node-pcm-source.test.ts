import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ffmpegPath } from "../../inference-node/media/ffmpeg-path.ts";
import { MediaError } from "../../inference-node/media/media-error.ts";
import { openPcm, pcmChunks, SAMPLE_RATE } from "../../inference-node/media/pcm-stream.ts";
import { speechWav } from "../native/audio.ts";
import { collectPcm } from "./live-helpers.ts";

let dir: string;
let speech: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-pcm-source-"));
  // espeak-ng through ffmpeg: a 16 kHz mono s16 WAV with ffmpeg's LIST/INFO chunk before the data
  speech = await speechWav("Seven samples of speech for the direct reader, read without ffmpeg.");
});

afterAll(() => rm(dir, { recursive: true, force: true }));

afterEach(() => {
  delete process.env.FFMPEG_PATH;
});

const ffmpeg = (...args: string[]) => execFileSync(ffmpegPath(), ["-loglevel", "error", "-y", ...args]);
const bytesOf = (pcm: Float32Array) => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);

/** The same file through openPcm and through ffmpeg: the samples must be bit-identical. */
async function expectDirectMatchesFfmpeg(file: string): Promise<Float32Array> {
  const source = await openPcm(file);
  expect(source.reader).toBe("wav");
  const direct = await collectPcm(source.chunks);
  const decoded = await collectPcm(pcmChunks(file));
  expect(direct.length).toBe(decoded.length);
  expect(bytesOf(direct).equals(bytesOf(decoded))).toBe(true);
  expect(source.durationSec).toBeCloseTo(direct.length / SAMPLE_RATE, 6);
  return direct;
}

/** A canonical 44-byte-header WAV (or WAVE_FORMAT_EXTENSIBLE with `extensible`) around `data`. */
function wavFile(data: Buffer, options: { extensible?: boolean; rate?: number; channels?: number } = {}) {
  const rate = options.rate ?? SAMPLE_RATE;
  const channels = options.channels ?? 1;
  const fmt = Buffer.alloc(options.extensible ? 40 : 16);
  fmt.writeUInt16LE(options.extensible ? 0xfffe : 1, 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE(rate * 2 * channels, 8);
  fmt.writeUInt16LE(2 * channels, 12);
  fmt.writeUInt16LE(16, 14);
  if (options.extensible) {
    fmt.writeUInt16LE(22, 16); // cbSize
    fmt.writeUInt16LE(16, 18); // valid bits
    fmt.writeUInt32LE(4, 20); // channel mask: front centre
    Buffer.from("0100000000001000800000aa00389b71", "hex").copy(fmt, 24); // KSDATAFORMAT_SUBTYPE_PCM
  }
  const chunk = (id: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, "latin1");
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body, Buffer.alloc(body.length % 2)]);
  };
  const body = Buffer.concat([Buffer.from("WAVE"), chunk("fmt ", fmt), chunk("data", data)]);
  const riff = Buffer.alloc(8);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe("16 kHz mono 16-bit WAV read directly", () => {
  it("gives exactly ffmpeg's samples for a WAV ffmpeg wrote (LIST chunk before the data)", async () => {
    const pcm = await expectDirectMatchesFfmpeg(speech);
    expect(pcm.length).toBeGreaterThan(SAMPLE_RATE);
  });

  it("reads a streamed WAV (data size 0xFFFFFFFF) to its end, as ffmpeg does", async () => {
    const file = join(dir, "streamed.wav");
    writeFileSync(
      file,
      execFileSync(ffmpegPath(), ["-loglevel", "error", "-i", speech, "-f", "wav", "pipe:1"]),
    );
    expect(readFileSync(file).includes(Buffer.from("data\xff\xff\xff\xff", "latin1"))).toBe(true);
    await expectDirectMatchesFfmpeg(file);
  });

  it("reads what a truncated WAV holds (cut inside a sample), as ffmpeg does", async () => {
    const file = join(dir, "truncated.wav");
    const whole = readFileSync(speech);
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6) | 1));
    await expectDirectMatchesFfmpeg(file);
  });

  it("reads WAVE_FORMAT_EXTENSIBLE integer PCM", async () => {
    const data = Buffer.alloc(20_000);
    for (let i = 0; i < data.length / 2; i++) data.writeInt16LE(Math.round(9000 * Math.sin(i / 7)), i * 2);
    const file = join(dir, "extensible.wav");
    writeFileSync(file, wavFile(data, { extensible: true }));
    const pcm = await expectDirectMatchesFfmpeg(file);
    expect(pcm.length).toBe(10_000);
  });

  it("leaves other WAVs (44.1 kHz stereo, float samples) to ffmpeg", async () => {
    const stereo = join(dir, "stereo.wav");
    const float = join(dir, "float.wav");
    ffmpeg("-i", speech, "-ar", "44100", "-ac", "2", stereo);
    ffmpeg("-i", speech, "-c:a", "pcm_f32le", float);
    const reference = await collectPcm(pcmChunks(speech));
    for (const file of [stereo, float]) {
      const source = await openPcm(file);
      expect(source.reader).toBe("ffmpeg");
      const pcm = await collectPcm(source.chunks);
      expect(Math.abs(pcm.length - reference.length)).toBeLessThan(SAMPLE_RATE / 100);
    }
  });

  it("fails malformed WAVs with the MediaError every unreadable file gets", async () => {
    const fmtOnly = wavFile(Buffer.alloc(0)).subarray(0, 36); // header ends inside the fmt chunk
    const noData = Buffer.concat([
      wavFile(Buffer.alloc(0)).subarray(0, 36),
      Buffer.from("junk\xa0\x86\x01\x00"),
    ]);
    const noChannels = wavFile(Buffer.alloc(1000), { channels: 0 });
    for (const [name, bytes] of Object.entries({ fmtOnly, noData, noChannels })) {
      const file = join(dir, `${name}.wav`);
      writeFileSync(file, bytes);
      const error = await collectPcm((await openPcm(file)).chunks).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(MediaError);
      expect(String(error), name).toMatch(/cannot decode the media as audio/);
    }
  });

  it("stops with the signal's reason when aborted", async () => {
    const ac = new AbortController();
    const source = await openPcm(speech, { signal: ac.signal });
    const reason = new Error("task cancelled");
    ac.abort(reason);
    await expect(collectPcm(source.chunks)).rejects.toBe(reason);
  });
});

describe("one ffmpeg process per file", () => {
  /** FFMPEG_PATH pointing at a script that logs each run and then execs the real ffmpeg. */
  function countingFfmpeg(): () => number {
    const log = join(dir, `runs-${Date.now()}.log`);
    const wrapper = join(dir, `ffmpeg-${Date.now()}.sh`);
    writeFileSync(wrapper, `#!/bin/sh\necho run >> '${log}'\nexec '${ffmpegPath()}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    writeFileSync(log, "");
    process.env.FFMPEG_PATH = wrapper;
    return () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;
  }

  it("decodes an mp3 with one ffmpeg run and a WAV with none", async () => {
    const mp3 = join(dir, "count.mp3");
    ffmpeg("-i", speech, "-c:a", "libmp3lame", "-b:a", "64k", mp3);
    const runs = countingFfmpeg();
    await collectPcm((await openPcm(mp3)).chunks);
    expect(runs()).toBe(1);
    await collectPcm((await openPcm(speech)).chunks);
    expect(runs()).toBe(1);
  });

  it("knows the duration of an mp3 without a Xing header and of an ogg from that one run", async () => {
    const seconds = 12.5;
    const cases = {
      // CBR mp3 without the Xing/Info frame: ffmpeg estimates from the bitrate
      "noxing.mp3": ["-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"],
      // Ogg has no duration field: ffmpeg reads the last page's granule position
      "vorbis.ogg": ["-c:a", "libvorbis"],
      "opus.ogg": ["-c:a", "libopus", "-b:a", "32k"],
    };
    for (const [name, codec] of Object.entries(cases)) {
      const file = join(dir, name);
      ffmpeg("-f", "lavfi", "-i", `sine=frequency=300:sample_rate=48000:duration=${seconds}`, ...codec, file);
      const source = await openPcm(file);
      expect(source.reader).toBe("ffmpeg");
      const chunks = source.chunks[Symbol.asyncIterator]();
      const first = await chunks.next();
      expect(first.done).toBe(false);
      // known with the first chunk, so progress works from the first window on
      expect(source.durationSec, name).not.toBeNull();
      expect(Math.abs((source.durationSec ?? 0) - seconds), name).toBeLessThan(0.15);
      let samples = first.value?.length ?? 0;
      for (let step = await chunks.next(); !step.done; step = await chunks.next())
        samples += step.value.length;
      // what a result reports: the decoded length (encoder delay and padding aside)
      expect(Math.abs(samples / SAMPLE_RATE - seconds), name).toBeLessThan(0.1);
    }
  });
});
