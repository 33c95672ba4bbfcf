import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffmpegPath } from "../../inference-node/media/ffmpeg-path.ts";
import { openPcm, SAMPLE_RATE } from "../../inference-node/media/pcm-stream.ts";
import { TaskFailureError } from "../../inference-node/task-failure.ts";

/**
 * Uploads are untrusted: ffmpeg guesses the container from the bytes, and a playlist or list that
 * names a local file made the node decode that file into the transcript (issue #19). These run the
 * real decoder (Debian's ffmpeg) on crafted files.
 */

let dir: string;
let privateWav: string;
let privateMp3: string;

const ffmpeg = (...args: string[]) => execFileSync(ffmpegPath(), ["-loglevel", "error", "-y", ...args]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-untrusted-"));
  // "the node's private files": audio an attacker wants read back through a transcript
  privateWav = join(dir, "private.wav");
  privateMp3 = join(dir, "private.mp3");
  ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=16000:duration=3", "-ac", "1", privateWav);
  ffmpeg("-i", privateWav, privateMp3);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Decodes `file` as a task would; returns the samples it yielded and the error it ended with. */
async function decode(file: string, maxDurationSec?: number) {
  let samples = 0;
  try {
    const source = await openPcm(file, maxDurationSec === undefined ? undefined : { maxDurationSec });
    for await (const chunk of source.chunks) samples += chunk.length;
    return { samples, error: null };
  } catch (error) {
    return { samples, error };
  }
}

function upload(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function expectRefused(result: { samples: number; error: unknown }, code: string, message: RegExp) {
  expect(result.samples, "no audio decoded").toBe(0);
  expect(result.error).toBeInstanceOf(TaskFailureError);
  expect((result.error as TaskFailureError).code).toBe(code);
  expect(String(result.error)).toMatch(message);
}

describe("media that points at other files is refused before decoding", () => {
  it("an HLS playlist listing a local WAV, uploaded as .mp3 (the issue's reproduction)", async () => {
    const file = upload(
      "upload.mp3",
      `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${privateWav}\n#EXT-X-ENDLIST\n`,
    );
    expectRefused(await decode(file), "unsupported_media", /playlist/);
  });

  it("an HLS playlist listing a local MP3 (which ffmpeg 5.1 would otherwise decode)", async () => {
    const file = upload(
      "upload2.mp3",
      `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${privateMp3}\n#EXT-X-ENDLIST\n`,
    );
    expectRefused(await decode(file), "unsupported_media", /playlist/);
  });

  it("an HLS playlist behind a byte-order mark and blank lines, and one using a file: URL", async () => {
    const bom = upload("bom.m4a", `\ufeff\n\n#EXTM3U\n#EXTINF:10,\n${privateMp3}\n#EXT-X-ENDLIST\n`);
    const fileUrl = upload("url.ogg", `#EXTM3U\n#EXTINF:10,\nfile:${privateMp3}\n#EXT-X-ENDLIST\n`);
    for (const file of [bom, fileUrl]) expectRefused(await decode(file), "unsupported_media", /playlist/);
  });

  it("an ffconcat list and a plain concat list", async () => {
    const ffconcat = upload("list.wav", `ffconcat version 1.0\nfile '${privateMp3}'\n`);
    const concat = upload("list.flac", `# parts\nfile '${privateMp3}'\n`);
    for (const file of [ffconcat, concat]) expectRefused(await decode(file), "unsupported_media", /concat/);
  });

  it("a DASH manifest", async () => {
    const file = upload(
      "talk.mp4",
      `<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT3S"><Period><AdaptationSet><Representation id="1" bandwidth="1000"><BaseURL>file:${privateMp3}</BaseURL></Representation></AdaptationSet></Period></MPD>\n`,
    );
    expectRefused(await decode(file), "unsupported_media", /DASH manifest/);
  });

  it("a bare file: (or other protocol) reference", async () => {
    for (const [name, text] of [
      ["ref.mp3", `file:${privateMp3}\n`],
      ["ref2.mp3", `concat:${privateMp3}|${privateMp3}\n`],
      ["ref3.mp3", "http://169.254.169.254/latest/meta-data\n"],
    ] as const) {
      expectRefused(await decode(upload(name, text)), "unsupported_media", /URL or protocol reference/);
    }
  });

  it("a container outside the allow-list that ffmpeg itself recognises (an image, a subtitle file)", async () => {
    const png = join(dir, "picture.mp3");
    ffmpeg("-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1", "-f", "image2", "-c:v", "png", png);
    const srt = upload("captions.mp3", "1\n00:00:00,000 --> 00:00:02,000\nhello there\n\n");
    for (const file of [png, srt]) expectRefused(await decode(file), "unsupported_media", /not an allowed/);
  });
});

/** A 1 s, 44.1 kHz stereo tone in `name`, made with the given encoder arguments. */
function tone(name: string, ...codec: string[]): string {
  const file = join(dir, name);
  ffmpeg("-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100:duration=1", "-ac", "2", ...codec, file);
  return file;
}

/** An AMR-NB file by hand (Debian's ffmpeg has the decoder but no encoder): 50 frames of 20 ms. */
function amr(): string {
  const frame = Buffer.alloc(32);
  frame[0] = 0x3c; // mode 7 (12.2 kbit/s), 31 bytes of speech bits follow
  const file = join(dir, "tone.amr");
  writeFileSync(file, Buffer.concat([Buffer.from("#!AMR\n"), ...Array(50).fill(frame)]));
  return file;
}

describe("every allowed container still decodes", () => {
  it("wav, w64, aiff, caf, mp3, flac, ogg, opus, webm, mkv, mp4, m4a, mov, 3gp, aac, amr, wma, wv, avi, ts", async () => {
    const files = [
      tone("tone.wav"),
      tone("tone.w64"),
      tone("tone.aiff"),
      tone("tone.caf"),
      tone("tone.mp3"),
      tone("tone.flac"),
      tone("tone.ogg", "-c:a", "libvorbis"),
      tone("tone.opus", "-c:a", "libopus", "-ar", "48000"),
      tone("tone.webm", "-c:a", "libopus", "-ar", "48000"),
      tone("tone.mkv", "-c:a", "flac"),
      tone("tone.mp4", "-c:a", "aac"),
      tone("tone.m4a", "-c:a", "alac"),
      tone("tone.mov", "-c:a", "pcm_s16le"),
      tone("tone.3gp", "-c:a", "aac"),
      tone("tone.aac", "-c:a", "aac"),
      amr(),
      tone("tone.wma", "-c:a", "wmav2"),
      tone("tone.wv"),
      tone("tone.avi", "-c:a", "pcm_s16le"),
      tone("tone.ts", "-c:a", "mp2"),
    ];
    for (const file of files) {
      const { samples, error } = await decode(file);
      expect(error, file).toBeNull();
      expect(Math.abs(samples / SAMPLE_RATE - 1), file).toBeLessThan(0.1);
    }
  }, 120_000);
});

describe("audio duration cap", () => {
  it("fails a 10-hour silent FLAC of a few MB with audio_too_long before decoding it", async () => {
    const file = join(dir, "ten-hours.flac");
    ffmpeg("-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "36000", "-c:a", "flac", file);
    const started = performance.now();
    const result = await decode(file); // the default cap: 14 400 s
    console.log(`10 h FLAC refused after ${Math.round(performance.now() - started)} ms`);
    expectRefused(result, "audio_too_long", /10:00:00|36000 s.*14400 s/);
  }, 120_000);

  it("fails a WAV read directly (no ffmpeg) that is longer than the cap", async () => {
    const result = await decode(privateWav, 2);
    expectRefused(result, "audio_too_long", /longer than the 2 s limit/);
  });

  it("stops decoding at the cap when the container declares no duration", async () => {
    // FLAC written to a pipe: ffmpeg cannot go back to fill in STREAMINFO's sample count
    const flac = execFileSync(ffmpegPath(), [
      ...["-loglevel", "error", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "40"],
      ...["-c:a", "flac", "-f", "flac", "pipe:1"],
    ]);
    const file = join(dir, "streamed.flac");
    writeFileSync(file, flac);
    const result = await decode(file, 10);
    expect(result.error).toBeInstanceOf(TaskFailureError);
    expect((result.error as TaskFailureError).code).toBe("audio_too_long");
    expect(result.samples).toBeLessThanOrEqual(10 * SAMPLE_RATE);
    // and under the cap the same file decodes in full
    const whole = await decode(file, 60);
    expect(whole.error).toBeNull();
    expect(whole.samples / SAMPLE_RATE).toBeCloseTo(40, 0);
  }, 60_000);
});
