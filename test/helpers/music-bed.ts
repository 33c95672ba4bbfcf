/**
 * A synthetic music bed for VAD tests and the `vad` bench: sox `synth` chords, no speech in it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const RATE = 16_000;

const CHORDS = [
  ["C3", "E4", "G4", "C2"],
  ["A2", "C4", "E4", "A1"],
  ["F2", "A3", "C4", "F1"],
  ["G2", "B3", "D4", "G1"],
];

/**
 * 8 s of synthetic music (sox `synth`): four chords of three plucked strings over a sine bass, 1 s
 * each, twice. Unnormalised (scale it to the level a test needs).
 */
export async function musicBed(): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for (let bar = 0; bar < 8; bar++) {
    const [a, b, c, bass] = CHORDS[bar % CHORDS.length]!;
    const { stdout } = await run(
      "sox",
      ["-n", "-r", String(RATE), "-c", "4", "-b", "32", "-e", "floating-point", "-t", "raw", "-"].concat([
        "synth",
        "1",
        "pluck",
        a!,
        "pluck",
        b!,
        "pluck",
        c!,
        "sine",
        bass!,
      ]),
      { encoding: "buffer", maxBuffer: 1 << 24 },
    );
    // sox writes one channel per note: averaged to mono, the bass at half weight
    const quad = new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
    const mono = new Float32Array(quad.length / 4);
    for (let s = 0; s < mono.length; s++)
      mono[s] = (quad[4 * s]! + quad[4 * s + 1]! + quad[4 * s + 2]! + 0.5 * quad[4 * s + 3]!) / 4;
    parts.push(mono);
  }
  const bed = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bed.set(part, at);
    at += part.length;
  }
  return bed;
}
