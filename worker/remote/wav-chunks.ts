import { pcmWavHeader, type WavFormat } from "../../protocol/wav.ts";

/**
 * Splitting a PCM WAV into shorter WAV files without decoding anything: the Worker cannot decode
 * compressed audio, but PCM frames can be cut anywhere. Each piece gets a small overlap before its own
 * span, so a word cut at the boundary is heard whole by one side; `ownedFrom`/`ownedTo` say which
 * stretch of the original each piece answers for (segments are kept by where their middle falls).
 * The format is protocol/wav.ts's validated one, so the frame size and rate are sane (at most
 * 192 kHz × 8 channels × 32 bits, 6.1 MB/s: one second always fits a piece).
 */

export interface WavPiece {
  wav: Uint8Array;
  /** Seconds in the original where this piece starts (overlap included). */
  offsetSec: number;
  /** The stretch of the original, in seconds, this piece's segments stand for. */
  ownedFrom: number;
  ownedTo: number;
}

export interface PieceLimits {
  /** The longest stretch one piece answers for. */
  pieceSec: number;
  /** Audio before each piece but the first, heard again. */
  overlapSec: number;
  /** The most audio bytes in one piece, overlap included (its 44-byte header aside). */
  maxPieceBytes: number;
}

/** How a file is cut: in whole frames, each piece owning `ownedFrames` after `overlapFrames` of the one before. */
export interface PiecePlan {
  format: WavFormat;
  frames: number;
  ownedFrames: number;
  overlapFrames: number;
  count: number;
}

/**
 * The cut of `dataBytes` of PCM under `limits`: pieces own at most `pieceSec` and at most what fits
 * `maxPieceBytes` beside the overlap, but never less than 1 s (the overlap shrinks instead), so a file
 * makes at most a few pieces per 10 MiB or per `pieceSec`, whatever its header says.
 *
 * @example planPieces(mono16k, 32_000 * 700, { pieceSec: 300, overlapSec: 1, maxPieceBytes: 10 << 20 }).count // 3
 */
export function planPieces(format: WavFormat, dataBytes: number, limits: PieceLimits): PiecePlan {
  const frames = Math.floor(dataBytes / format.blockAlign);
  const maxFrames = Math.floor(limits.maxPieceBytes / format.blockAlign);
  const wantedOverlap = Math.floor(limits.overlapSec * format.sampleRate);
  const ownedFrames = Math.max(
    format.sampleRate,
    Math.min(Math.floor(limits.pieceSec * format.sampleRate), maxFrames - wantedOverlap),
  );
  const overlapFrames = Math.max(0, Math.min(wantedOverlap, maxFrames - ownedFrames));
  return { format, frames, ownedFrames, overlapFrames, count: Math.ceil(frames / ownedFrames) };
}

/**
 * The pieces of `plan`, one at a time: each is built (one copy of its span) only when asked for, so a
 * long file never sits in memory twice.
 */
export function* cutPieces(plan: PiecePlan, data: Uint8Array): Generator<WavPiece> {
  const { format, frames, ownedFrames, overlapFrames } = plan;
  for (let owned = 0; owned < frames; owned += ownedFrames) {
    const from = Math.max(0, owned - overlapFrames);
    const to = Math.min(frames, owned + ownedFrames);
    yield {
      wav: wavFile(format, data.subarray(from * format.blockAlign, to * format.blockAlign)),
      offsetSec: from / format.sampleRate,
      ownedFrom: owned / format.sampleRate,
      ownedTo: to / format.sampleRate,
    };
  }
}

/** A canonical 44-byte-header PCM WAV around `data`. */
function wavFile(format: WavFormat, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(44 + data.byteLength);
  out.set(pcmWavHeader(format, data.byteLength));
  out.set(data, 44);
  return out;
}
