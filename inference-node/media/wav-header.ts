import { open } from "node:fs/promises";
import { readWav } from "../../protocol/wav.ts";

/** Where the samples of a WAV file that needs no conversion lie. */
export interface DirectWav {
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of samples present in the file (the declared size, cut to what the file holds). */
  dataBytes: number;
}

const SAMPLE_RATE = 16_000;
/** The head of the file the header is read from: a real WAV's chunks before its data fit many times over. */
const HEAD_BYTES = 64 * 1024;

/**
 * The layout of `file` when it is a RIFF/WAVE of 16-bit integer PCM, 16 kHz, mono: the samples
 * whisper needs, so they can be read without ffmpeg. Anything else (another format, rate or channel
 * count, RF64, a zero data size, a header protocol/wav.ts refuses or a data chunk past the file's first
 * 64 KiB) is null: ffmpeg then decodes it and is the one judge of what is readable, so both paths fail
 * and succeed on the same files. A data size of 0xFFFFFFFF (what ffmpeg writes when it streams a WAV)
 * means "to the end".
 *
 * @example
 * const wav = await directWav("upload.wav"); // { dataOffset: 44, dataBytes: 160000 } or null
 */
export async function directWav(file: string): Promise<DirectWav | null> {
  const handle = await open(file, "r");
  try {
    const fileSize = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(fileSize, HEAD_BYTES));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const wav = readWav(head.subarray(0, bytesRead), fileSize);
    if (wav.kind !== "wav" || wav.declaredDataBytes === 0) return null;
    const { encoding, channels, sampleRate, bitsPerSample } = wav.format;
    const whisperReady =
      encoding === "pcm" && channels === 1 && sampleRate === SAMPLE_RATE && bitsPerSample === 16;
    return whisperReady ? { dataOffset: wav.dataOffset, dataBytes: wav.dataBytes } : null;
  } finally {
    await handle.close();
  }
}
