/**
 * The one RIFF/WAVE reader and PCM WAV header writer, on plain bytes so the Worker (the remote tier's
 * splitter) and the node (direct WAV reads, TTS narration) share it. The reader trusts no header field:
 * everything a caller sizes memory or calls by (sample rate, channels, block align, byte rate) is
 * checked against WAV_LIMITS and against each other before it is returned.
 */

/** What a header may declare. Outside these a WAV is refused, whatever the rest of the file holds. */
export const WAV_LIMITS = {
  minSampleRate: 8000,
  maxSampleRate: 192_000,
  maxChannels: 8,
  /** Sample sizes of integer PCM, and of float (32 only: at most 6.1 MB/s of audio, which one remote call holds a second of). */
  pcmBits: [8, 16, 24, 32],
  floatBits: [32],
  /** Chunk headers walked before the data chunk (a real file has a handful). */
  maxChunks: 64,
} as const;

/** How the samples are coded: integer PCM, IEEE float, or a codec (ADPCM, µ-law, …) nothing here splits. */
export type WavEncoding = "pcm" | "float" | "other";

export interface WavFormat {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per frame (all channels of one sample). */
  blockAlign: number;
  /** Bytes per second of audio. */
  byteRate: number;
}

export type WavRead =
  | {
      kind: "wav";
      format: WavFormat;
      /** Byte offset of the first sample. */
      dataOffset: number;
      /** Bytes of samples present (the declared size cut to the file, whole frames for pcm/float). */
      dataBytes: number;
      /** The data chunk's size field as written: 0 and 0xFFFFFFFF are a streaming writer's "to the end". */
      declaredDataBytes: number;
    }
  /** Not a RIFF/WAVE file at all (another container; RF64 too). */
  | { kind: "not_wav" }
  /** A RIFF/WAVE whose header cannot be used: `reason` says which field, for the stored message. */
  | { kind: "invalid"; reason: string };

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;
/** The WAVE_FORMAT_EXTENSIBLE sub-format GUID after its first two bytes (which are the real format tag). */
const GUID_TAIL = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71];
const STREAMED = 0xffffffff;

/**
 * Reads a WAV's header from `head`, the file's first bytes (or all of it); `fileBytes` is the whole
 * file's size, by which the data chunk's present size is cut. A data chunk beyond `head` is `invalid`.
 *
 * @example readWav(bytes) // { kind: "wav", format: { encoding: "pcm", sampleRate: 16000, … }, dataOffset: 44, … }
 */
export function readWav(head: Uint8Array, fileBytes: number = head.byteLength): WavRead {
  if (head.byteLength < 12 || tag(head, 0) !== "RIFF" || tag(head, 8) !== "WAVE") return { kind: "not_wav" };
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let format: WavFormat | null = null;
  let at = 12;
  for (let chunk = 0; chunk < WAV_LIMITS.maxChunks && at + 8 <= head.byteLength; chunk++) {
    const id = tag(head, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === "fmt ") {
      if (size < 16 || body + size > head.byteLength) return invalid("its fmt chunk is cut short");
      const read = readFormat(new DataView(head.buffer, head.byteOffset + body, size));
      if (typeof read === "string") return invalid(read);
      format = read;
    } else if (id === "data") {
      if (!format) return invalid("its data comes before its fmt chunk");
      const declared = size === 0 || size === STREAMED ? fileBytes - body : size;
      const present = Math.max(0, Math.min(declared, fileBytes - body));
      const frame = format.encoding === "other" ? 1 : format.blockAlign;
      return {
        kind: "wav",
        format,
        dataOffset: body,
        dataBytes: present - (present % frame),
        declaredDataBytes: size,
      };
    }
    at = body + size + (size % 2);
  }
  return invalid("it has no data chunk among its first chunks");
}

/** Seconds of audio in a read WAV, from its validated byte rate. */
export function wavDurationSec(wav: { format: WavFormat; dataBytes: number }): number {
  return wav.dataBytes / wav.format.byteRate;
}

/**
 * The canonical 44-byte header of an integer PCM WAV of `dataBytes` bytes of samples.
 *
 * @example pcmWavHeader({ channels: 1, sampleRate: 16000, bitsPerSample: 16 }, 32000)
 */
export function pcmWavHeader(
  format: { channels: number; sampleRate: number; bitsPerSample: number },
  dataBytes: number,
): Uint8Array {
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const out = new Uint8Array(44);
  const view = new DataView(out.buffer);
  const put = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  };
  put(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  put(8, "WAVE");
  put(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, PCM, true);
  view.setUint16(22, format.channels, true);
  view.setUint32(24, format.sampleRate, true);
  view.setUint32(28, format.sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, format.bitsPerSample, true);
  put(36, "data");
  view.setUint32(40, dataBytes, true);
  return out;
}

/** The fmt chunk's body as a checked WavFormat, or why it is refused. */
function readFormat(fmt: DataView): WavFormat | string {
  let codec = fmt.getUint16(0, true);
  if (codec === EXTENSIBLE) {
    const guidTail = fmt.byteLength >= 40 ? new Uint8Array(fmt.buffer, fmt.byteOffset + 26, 14) : null;
    codec = guidTail?.every((byte, i) => byte === GUID_TAIL[i]) ? fmt.getUint16(24, true) : -1;
  }
  const encoding: WavEncoding = codec === PCM ? "pcm" : codec === FLOAT ? "float" : "other";
  const format: WavFormat = {
    encoding,
    channels: fmt.getUint16(2, true),
    sampleRate: fmt.getUint32(4, true),
    byteRate: fmt.getUint32(8, true),
    blockAlign: fmt.getUint16(12, true),
    bitsPerSample: fmt.getUint16(14, true),
  };
  const { minSampleRate, maxSampleRate, maxChannels } = WAV_LIMITS;
  if (format.sampleRate < minSampleRate || format.sampleRate > maxSampleRate)
    return `its sample rate (${format.sampleRate} Hz) is outside ${minSampleRate}–${maxSampleRate} Hz`;
  if (format.channels < 1 || format.channels > maxChannels)
    return `its channel count (${format.channels}) is outside 1–${maxChannels}`;
  if (format.blockAlign < 1 || format.byteRate < 1) return "its block align or byte rate is 0";
  if (encoding === "other") return format;
  const bits: readonly number[] = encoding === "pcm" ? WAV_LIMITS.pcmBits : WAV_LIMITS.floatBits;
  if (!bits.includes(format.bitsPerSample))
    return `its sample size (${format.bitsPerSample} bits) is not one of ${bits.join(", ")}`;
  const frame = format.channels * (format.bitsPerSample / 8);
  if (format.blockAlign !== frame)
    return `its block align (${format.blockAlign}) is not channels × bits / 8 (${frame})`;
  if (format.byteRate !== format.sampleRate * frame)
    return `its byte rate (${format.byteRate}) is not sample rate × block align (${format.sampleRate * frame})`;
  return format;
}

function invalid(reason: string): WavRead {
  return { kind: "invalid", reason: `the WAV header is unusable: ${reason}` };
}

function tag(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}
