import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SILERO_FRAME, SileroVad } from "../../inference-node/vad/silero.ts";
import {
  EnergyVoiceActivity,
  loadVoiceActivity,
  speechFrames,
} from "../../inference-node/vad/voice-activity.ts";
import { pinkNoise, seededRandom } from "../helpers/dialogue.ts";
import { musicBed } from "../helpers/music-bed.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet, SR, tone } from "./live-helpers.ts";

/** A steady sine at `hz`, amplitude 0.25. */
const sine = (ms: number, hz: number) =>
  Float32Array.from(
    { length: Math.round((ms * SR) / 1000) },
    (_, i) => 0.25 * Math.sin((2 * Math.PI * hz * i) / SR),
  );

/** Silero VAD v5 with the real ONNX model from the pinned package, on crafted audio. */

let vad: SileroVad;
let speech: Float32Array;

beforeAll(async () => {
  vad = await SileroVad.load();
  speech = await speechPcm("The quick brown fox jumps over the lazy dog, and then it runs away.");
});

/** `ms` of pink noise at `rmsDb` dBFS. */
function noise(ms: number, rmsDb: number, seed = 7): Float32Array {
  const pcm = pinkNoise(Math.round((ms * SR) / 1000), seededRandom(seed));
  return scaleTo(pcm, rmsDb);
}

function whiteNoise(ms: number, rmsDb: number, seed = 3): Float32Array {
  const random = seededRandom(seed);
  return scaleTo(
    Float32Array.from({ length: Math.round((ms * SR) / 1000) }, () => random() * 2 - 1),
    rmsDb,
  );
}

function scaleTo(pcm: Float32Array, rmsDb: number): Float32Array {
  const rms = Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);
  const gain = 10 ** (rmsDb / 20) / rms;
  return pcm.map((x) => x * gain);
}

const share = (flags: boolean[]) => flags.filter(Boolean).length / Math.max(1, flags.length);

/** Speech flags of the frames lying wholly inside [from, to) samples. */
const within = (flags: boolean[], from: number, to: number) =>
  flags.filter((_, i) => i * SILERO_FRAME >= from && (i + 1) * SILERO_FRAME <= to);

describe("Silero VAD (real ONNX model)", () => {
  it("loads the v5 graph: input with context, state, sample rate", () => {
    expect(vad.session.inputNames).toEqual(["input", "state", "sr"]);
    expect(vad.session.outputNames).toEqual(["output", "stateN"]);
  });

  it("finds no speech in digital silence", async () => {
    expect(share(await speechFrames(vad, quiet(3000)))).toBe(0);
  });

  it("finds no speech in white or pink noise at a moderate level", async () => {
    const started = performance.now();
    const white = await speechFrames(vad, whiteNoise(5000, -30));
    console.log(`5 s of audio labelled in ${Math.round(performance.now() - started)} ms`);
    const pink = await speechFrames(vad, noise(5000, -30));
    console.log(`noise: white ${share(white)}, pink ${share(pink)} of frames called speech`);
    expect(share(white)).toBeLessThan(0.02);
    expect(share(pink)).toBeLessThan(0.02);
  });

  it("does not take a steady 440 Hz tone for speech", async () => {
    const flags = await speechFrames(vad, sine(3000, 440));
    const syllabic = await speechFrames(vad, tone(3000));
    console.log(
      `440 Hz tone: ${share(flags)}, syllabic 220 Hz tone: ${share(syllabic)} of frames called speech`,
    );
    expect(share(flags)).toBeLessThan(0.1);
  });

  it("does not take a music bed (plucked chords over a bass, no voice) for speech", async () => {
    const flags = await speechFrames(vad, scaleTo(await musicBed(), -25));
    console.log(`music bed: ${share(flags)} of frames called speech`);
    expect(share(flags)).toBeLessThan(0.1);
  });

  it("marks at least 80 % of espeak-ng speech as speech, and not the silence around it", async () => {
    const lead = quiet(1000);
    const flags = await speechFrames(vad, concat(lead, speech, quiet(1500)));
    const voiced = within(flags, lead.length, lead.length + speech.length);
    console.log(`speech: ${share(voiced)} of the speech region`);
    expect(share(voiced)).toBeGreaterThanOrEqual(0.8);
    expect(share(within(flags, 0, lead.length - 2 * SILERO_FRAME))).toBe(0);
    expect(share(within(flags, lead.length + speech.length + SR / 2, flags.length * SILERO_FRAME))).toBe(0);
  });

  it("still finds speech under pink noise at 10 dB SNR", async () => {
    const power = speech.reduce((sum, x) => sum + x * x, 0) / speech.length;
    const noiseDb = 10 * Math.log10(power) - 10;
    const bed = noise(1000 + (speech.length / SR) * 1000 + 1500, noiseDb, 11);
    const lead = SR;
    for (let s = 0; s < speech.length; s++) bed[lead + s] = (bed[lead + s] ?? 0) + (speech[s] ?? 0);
    const flags = await speechFrames(vad, bed);
    const voiced = within(flags, lead, lead + speech.length);
    const before = within(flags, 0, lead - 2 * SILERO_FRAME);
    console.log(
      `speech at 10 dB SNR: ${share(voiced)} of the speech region, ${share(before)} of the noise before`,
    );
    expect(share(voiced)).toBeGreaterThanOrEqual(0.7);
    expect(share(before)).toBeLessThan(0.1);
  });

  it("keeps each stream's state apart while sharing one session", async () => {
    const pcm = concat(quiet(500), speech, quiet(500));
    const alone = await speechFrames(vad, pcm);
    const [a, b] = await Promise.all([speechFrames(vad, pcm), speechFrames(vad, whiteNoise(3000, -30))]);
    expect(a).toEqual(alone);
    expect(share(b)).toBeLessThan(0.02);
  });

  it("refuses a stream's next frame while its previous one is still running", async () => {
    const pcm = concat(quiet(200), speech);
    const stream = vad.stream();
    const first = stream.probability(pcm.subarray(0, SILERO_FRAME));
    await expect(stream.probability(pcm.subarray(SILERO_FRAME, 2 * SILERO_FRAME))).rejects.toThrow(
      /one frame at a time/,
    );
    // the refused frame left the stream as it was: it goes on exactly as one that never saw it
    const reference = vad.stream();
    expect(await first).toBe(await reference.probability(pcm.subarray(0, SILERO_FRAME)));
    for (let at = SILERO_FRAME; at + SILERO_FRAME <= pcm.length; at += SILERO_FRAME) {
      const frame = pcm.subarray(at, at + SILERO_FRAME);
      expect(await stream.probability(frame)).toBe(await reference.probability(frame));
    }
  });

  it("refuses frames of the wrong size", async () => {
    await expect(vad.stream().probability(new Float32Array(160))).rejects.toThrow(/512 samples/);
  });

  it("falls back to the energy VAD, with one warning, when the model cannot load", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "vad-"));
    const corrupt = path.join(dir, "silero_vad_v5.onnx");
    await writeFile(corrupt, Buffer.from("not an onnx graph"));
    const warnings: string[] = [];
    for (const modelPath of [path.join(dir, "missing.onnx"), corrupt]) {
      const fallback = await loadVoiceActivity("silero", (m) => warnings.push(m), modelPath);
      expect(fallback).toBeInstanceOf(EnergyVoiceActivity);
    }
    expect(warnings).toHaveLength(2);
    for (const w of warnings) expect(w).toMatch(/^Silero VAD unavailable, using the energy VAD: ./);
    await rm(dir, { recursive: true });
  });

  it("loads silero by default and the energy VAD when asked", async () => {
    const warnings: string[] = [];
    expect((await loadVoiceActivity("silero", (m) => warnings.push(m))).kind).toBe("silero");
    expect(await loadVoiceActivity("energy", (m) => warnings.push(m))).toBeInstanceOf(EnergyVoiceActivity);
    expect(warnings).toEqual([]);
  });
});
