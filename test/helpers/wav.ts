import { writeFileSync } from "node:fs";
import { pcmWavHeader } from "../../protocol/wav.ts";

/** Writes 16 kHz mono Float32 samples as a 16-bit PCM WAV file (the header from the one WAV writer). */
export function writeWav(path: string, samples: Float32Array, sampleRate = 16_000): void {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * 32767))), i * 2);
  }
  const header = pcmWavHeader({ channels: 1, sampleRate, bitsPerSample: 16 }, data.length);
  writeFileSync(path, Buffer.concat([header, data]));
}
