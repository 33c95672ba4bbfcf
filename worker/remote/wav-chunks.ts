/**
 * Splitting a PCM WAV file into shorter WAV files without decoding anything: the Worker cannot decode
 * compressed audio, but PCM frames can be cut anywhere. Each piece gets a small overlap before its own
 * span, so a word cut at the boundary is heard whole by one side; `ownedFrom`/`ownedTo` say which
 * stretch of the original each piece answers for (segments are kept by where their middle falls).
 */

export interface WavFormat {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per frame (all channels of one sample). */
  blockAlign: number;
}

export interface WavPiece {
  wav: Uint8Array;
  /** Seconds in the original where this piece starts (overlap included). */
  offsetSec: number;
  /** The stretch of the original, in seconds, this piece's segments stand for. */
  ownedFrom: number;
  ownedTo: number;
}

const PCM = 1;
const EXTENSIBLE = 0xfffe;

/** What a WAV header may say and still be taken at its word (anything else is refused, not guessed at). */
export const WAV_LIMITS = {
  minSampleRate: 8_000,
  maxSampleRate: 192_000,
  maxChannels: 8,
  bitsPerSample: [8, 16, 24, 32],
} as const;

/** A PCM WAV whose header contradicts itself or asks for what no real recording has. */
export class WavHeaderError extends Error {
  override name = "WavHeaderError";
}

/**
 * The format and data bytes of a PCM WAV; null for anything else (another container, a compressed WAV).
 * A PCM header is checked before anything is sized from it (WAV_LIMITS; the block size must be channels ×
 * bytes per sample and the byte rate sample rate × block size): it throws WavHeaderError otherwise.
 */
export function readPcmWav(bytes: Uint8Array): { format: WavFormat; data: Uint8Array } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || tag(bytes, 0) !== "RIFF" || tag(bytes, 8) !== "WAVE") return null;
  let format: WavFormat | null = null;
  for (let at = 12; at + 8 <= bytes.byteLength; ) {
    const id = tag(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === "fmt " && size >= 16 && body + 16 <= bytes.byteLength) {
      const codec = view.getUint16(body, true);
      if (codec !== PCM && codec !== EXTENSIBLE) return null;
      format = checkedFormat(
        {
          channels: view.getUint16(body + 2, true),
          sampleRate: view.getUint32(body + 4, true),
          blockAlign: view.getUint16(body + 12, true),
          bitsPerSample: view.getUint16(body + 14, true),
        },
        view.getUint32(body + 8, true),
      );
    } else if (id === "data" && format) {
      // A streamed WAV may declare a data size larger than the file (or 0xffffffff): use what is there.
      const end = Math.min(bytes.byteLength, body + size);
      const whole = end - body - ((end - body) % format.blockAlign);
      return { format, data: bytes.subarray(body, body + whole) };
    }
    at = body + size + (size % 2);
  }
  return null;
}

function checkedFormat(format: WavFormat, byteRate: number): WavFormat {
  const { channels, sampleRate, bitsPerSample, blockAlign } = format;
  const refuse = (what: string) => {
    throw new WavHeaderError(`the WAV header ${what}`);
  };
  if (sampleRate < WAV_LIMITS.minSampleRate || sampleRate > WAV_LIMITS.maxSampleRate)
    refuse(`says ${sampleRate} Hz (${WAV_LIMITS.minSampleRate}–${WAV_LIMITS.maxSampleRate} Hz accepted)`);
  if (channels < 1 || channels > WAV_LIMITS.maxChannels)
    refuse(`says ${channels} channels (1–${WAV_LIMITS.maxChannels} accepted)`);
  if (!(WAV_LIMITS.bitsPerSample as readonly number[]).includes(bitsPerSample))
    refuse(`says ${bitsPerSample} bits per sample (${WAV_LIMITS.bitsPerSample.join(", ")} accepted)`);
  if (blockAlign !== (channels * bitsPerSample) / 8)
    refuse(
      `says ${blockAlign} bytes per frame, not channels × bytes per sample (${(channels * bitsPerSample) / 8})`,
    );
  if (byteRate !== sampleRate * blockAlign)
    refuse(`says ${byteRate} bytes a second, not sample rate × bytes per frame (${sampleRate * blockAlign})`);
  return format;
}

/** Seconds of audio in PCM data of `format`. */
export function pcmSeconds(format: WavFormat, data: Uint8Array): number {
  return data.byteLength / format.blockAlign / format.sampleRate;
}

/** How many pieces splitPcmWav cuts (for progress), without cutting them. */
export function pieceCount(format: WavFormat, data: Uint8Array, pieceSec: number): number {
  return Math.ceil(data.byteLength / format.blockAlign / pieceFrames(format, pieceSec));
}

/**
 * Cuts PCM data into pieces of at most `pieceSec` (at least one second; plus `overlapSec` before each one
 * but the first), each a complete WAV file, one at a time as they are asked for.
 *
 * @example [...splitPcmWav(format, data, 600, 1)].map((p) => p.ownedFrom) // [0, 600, 1200, ...]
 */
export function* splitPcmWav(
  format: WavFormat,
  data: Uint8Array,
  pieceSec: number,
  overlapSec: number,
): Generator<WavPiece> {
  const frames = data.byteLength / format.blockAlign;
  const step = pieceFrames(format, pieceSec);
  const overlapFrames = Math.min(step, Math.max(0, Math.floor(overlapSec * format.sampleRate)));
  for (let owned = 0; owned < frames; owned += step) {
    const from = Math.max(0, owned - overlapFrames);
    const to = Math.min(frames, owned + step);
    yield {
      wav: wavFile(format, data.subarray(from * format.blockAlign, to * format.blockAlign)),
      offsetSec: from / format.sampleRate,
      ownedFrom: owned / format.sampleRate,
      ownedTo: to / format.sampleRate,
    };
  }
}

/** Frames in one piece of `pieceSec`, never under a second's worth. */
function pieceFrames(format: WavFormat, pieceSec: number): number {
  return Math.max(format.sampleRate, Math.floor(pieceSec * format.sampleRate));
}

/** A canonical 44-byte-header PCM WAV around `data`. */
export function wavFile(format: WavFormat, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(44 + data.byteLength);
  const view = new DataView(out.buffer);
  const put = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  };
  put(0, "RIFF");
  view.setUint32(4, 36 + data.byteLength, true);
  put(8, "WAVE");
  put(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, PCM, true);
  view.setUint16(22, format.channels, true);
  view.setUint32(24, format.sampleRate, true);
  view.setUint32(28, format.sampleRate * format.blockAlign, true);
  view.setUint16(32, format.blockAlign, true);
  view.setUint16(34, format.bitsPerSample, true);
  put(36, "data");
  view.setUint32(40, data.byteLength, true);
  out.set(data, 44);
  return out;
}

function tag(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}
