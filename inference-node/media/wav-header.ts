import { open } from "node:fs/promises";

/** Where the samples of a WAV file that needs no conversion lie. */
export interface DirectWav {
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of samples present in the file (the declared size, cut to what the file holds). */
  dataBytes: number;
}

const SAMPLE_RATE = 16_000;
/** Chunk headers to walk before giving up (a real file has a handful). */
const MAX_CHUNKS = 64;
/** WAVE_FORMAT_EXTENSIBLE sub-format GUID of integer PCM, after its first two bytes (the format tag). */
const PCM_GUID_TAIL = Buffer.from("000000001000800000aa00389b71", "hex");

/**
 * The layout of `file` when it is a RIFF/WAVE of 16-bit integer PCM, 16 kHz, mono: the samples
 * whisper needs, so they can be read without ffmpeg. Anything else (another format, rate or channel
 * count, RF64, a zero data size, a header that does not parse) is null: ffmpeg then decodes
 * it and is the one judge of what is readable, so both paths fail and succeed on the same files.
 * A data size of 0xFFFFFFFF (what ffmpeg writes when it streams a WAV) means "to the end".
 *
 * @example
 * const wav = await directWav("upload.wav"); // { dataOffset: 44, dataBytes: 160000 } or null
 */
export async function directWav(file: string): Promise<DirectWav | null> {
  const handle = await open(file, "r");
  try {
    const fileSize = (await handle.stat()).size;
    const read = async (position: number, length: number): Promise<Buffer | null> => {
      if (position + length > fileSize) return null;
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return bytesRead === length ? buffer : null;
    };
    const riff = await read(0, 12);
    if (riff?.toString("latin1", 0, 4) !== "RIFF" || riff.toString("latin1", 8, 12) !== "WAVE") {
      return null;
    }
    let formatOk = false;
    let at = 12;
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const header = await read(at, 8);
      if (!header) return null;
      const id = header.toString("latin1", 0, 4);
      const size = header.readUInt32LE(4);
      const body = at + 8;
      if (id === "fmt ") {
        const fmt = size >= 16 && size <= 256 ? await read(body, size) : null;
        if (!fmt || !isMono16kS16(fmt)) return null;
        formatOk = true;
      } else if (id === "data") {
        if (!formatOk || size === 0) return null;
        const available = fileSize - body;
        const declared = size === 0xffffffff ? available : size;
        const bytes = Math.min(declared, available);
        return { dataOffset: body, dataBytes: bytes - (bytes % 2) };
      }
      at = body + size + (size % 2); // chunks are padded to an even length
    }
    return null;
  } finally {
    await handle.close();
  }
}

function isMono16kS16(fmt: Buffer): boolean {
  let tag = fmt.readUInt16LE(0);
  if (tag === 0xfffe) {
    // WAVE_FORMAT_EXTENSIBLE: the real format is the sub-format GUID at byte 24
    if (fmt.length < 40 || !fmt.subarray(26, 40).equals(PCM_GUID_TAIL)) return false;
    tag = fmt.readUInt16LE(24);
  }
  const channels = fmt.readUInt16LE(2);
  const rate = fmt.readUInt32LE(4);
  const blockAlign = fmt.readUInt16LE(12);
  const bits = fmt.readUInt16LE(14);
  return tag === 1 && channels === 1 && rate === SAMPLE_RATE && bits === 16 && blockAlign === 2;
}
