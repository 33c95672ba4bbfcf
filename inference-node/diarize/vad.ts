/**
 * Online energy VAD. The noise floor is a running minimum over the last few seconds (minimum
 * statistics: the minimum of sub-window minima) and the speech level a running maximum, so both
 * follow slow level changes without a look-ahead. A frame is voiced when it clears an absolute floor
 * and the noise floor plus a margin; the margin shrinks from `marginDb` towards `minMarginDb` when
 * the gap between speech level and floor is small (noisy audio), staying at a fixed fraction of it. Voiced frames are joined into speech intervals across short pauses (the hangover) and padded
 * slightly on both sides; unlike a trailing-only hangover this does not push every turn end late.
 */

/** How frames become intervals, whichever detector decided them (defaults of {@link VadOptions}). */
export const INTERVAL_DEFAULTS = { hangoverFrames: 30, padFrames: 5, minVoicedFrames: 5 };

/** Share of the speech-level-to-floor gap used as margin (between the margin bounds). */
const MARGIN_SHARE = 0.3;

/** Tuning of {@link EnergyVad}; levels in dBFS of a 25 ms frame, durations in 10 ms frames. */
export interface VadOptions {
  /** Frames quieter than this are never speech. Default -55. */
  absoluteFloorDb?: number;
  /** How far above the tracked noise floor a frame must be, at most. Default 12. */
  marginDb?: number;
  /** The margin never drops below this, however noisy the audio. Default 6. */
  minMarginDb?: number;
  /** Pauses up to this many frames stay inside one interval (hangover). Default 30 (0.3 s). */
  hangoverFrames?: number;
  /** Frames added before the first and after the last voiced frame of an interval. Default 5. */
  padFrames?: number;
  /** Intervals with fewer voiced frames (clicks, bumps) are dropped. Default 5. */
  minVoicedFrames?: number;
  /** Frames per sub-window of the minimum tracker. Default 50 (0.5 s). */
  subWindowFrames?: number;
  /** Sub-windows the floor remembers. Default 6 (3 s with the default sub-window). */
  subWindows?: number;
}

/**
 * Frame-by-frame speech detector that also records speech intervals (in frames, end exclusive).
 *
 * @example
 * const vad = new EnergyVad();
 * for (const db of frameEnergiesDb) vad.update(db);
 * const intervals = vad.intervals(); // [[start, end], ...] in 10 ms frames
 */
export class EnergyVad implements FrameVoicing {
  private readonly options: Required<VadOptions>;
  private readonly minima: number[] = [];
  private readonly maxima: number[] = [];
  private currentMin = Number.POSITIVE_INFINITY;
  private currentMax = Number.NEGATIVE_INFINITY;
  private frame = 0;
  private readonly log: IntervalLog;

  constructor(options: VadOptions = {}) {
    this.options = {
      absoluteFloorDb: -55,
      marginDb: 12,
      minMarginDb: 6,
      ...INTERVAL_DEFAULTS,
      subWindowFrames: 50,
      subWindows: 6,
      ...options,
    };
    this.log = new IntervalLog(this.options);
  }

  /** Consumes the next frame's energy; returns whether that frame is voiced. */
  update(energyDb: number): boolean {
    const o = this.options;
    this.currentMin = Math.min(this.currentMin, energyDb);
    this.currentMax = Math.max(this.currentMax, energyDb);
    const floor = Math.min(this.currentMin, ...this.minima);
    const level = Math.max(this.currentMax, ...this.maxima);
    const margin = Math.min(o.marginDb, Math.max(o.minMarginDb, MARGIN_SHARE * (level - floor)));
    const voiced = energyDb > o.absoluteFloorDb && energyDb > floor + margin;
    this.log.mark(voiced);
    this.frame++;
    if (this.frame % o.subWindowFrames === 0) {
      this.minima.push(this.currentMin);
      this.maxima.push(this.currentMax);
      if (this.minima.length > o.subWindows) {
        this.minima.shift();
        this.maxima.shift();
      }
      this.currentMin = Number.POSITIVE_INFINITY;
      this.currentMax = Number.NEGATIVE_INFINITY;
    }
    return voiced;
  }

  intervals(): [number, number][] {
    return this.log.intervals();
  }

  get bytes(): number {
    return this.log.bytes;
  }
}

/** A per-10 ms-frame speech decision that also records speech intervals (what the diarizer needs). */
export interface FrameVoicing {
  /** Consumes the next frame (its energy in dBFS); returns whether that frame is voiced. */
  update(energyDb: number): boolean;
  /** Speech intervals so far as [startFrame, endFrame) pairs, clipped to the frames seen. */
  intervals(): [number, number][];
  /** Bytes held by the recorded intervals (8 bytes per stored number). */
  get bytes(): number;
}

/**
 * Voiced frames joined into speech intervals across pauses up to `hangoverFrames`, padded by
 * `padFrames`, intervals with fewer than `minVoicedFrames` voiced frames dropped.
 */
export class IntervalLog {
  private frame = 0;
  /** Flat [start, end, start, end, ...] of closed intervals. */
  private readonly closed: number[] = [];
  /** The interval being extended: first and last voiced frame and its voiced count. */
  private open: { first: number; last: number; voiced: number } | null = null;

  constructor(
    private readonly options: Pick<Required<VadOptions>, "hangoverFrames" | "padFrames" | "minVoicedFrames">,
  ) {}

  /** Records the next frame's decision. */
  mark(voiced: boolean): void {
    if (voiced) {
      if (this.open && this.frame - this.open.last > this.options.hangoverFrames + 1) this.close();
      if (this.open) {
        this.open.last = this.frame;
        this.open.voiced++;
      } else {
        this.open = { first: this.frame, last: this.frame, voiced: 1 };
      }
    }
    this.frame++;
  }

  intervals(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i + 1 < this.closed.length; i += 2)
      out.push([this.closed[i] ?? 0, this.closed[i + 1] ?? 0]);
    const open = this.padded();
    if (open) out.push(open);
    return out;
  }

  get bytes(): number {
    return this.closed.length * 8;
  }

  private padded(): [number, number] | null {
    const { open } = this;
    if (!open || open.voiced < this.options.minVoicedFrames) return null;
    const pad = this.options.padFrames;
    const previousEnd = this.closed.at(-1) ?? 0;
    return [Math.max(previousEnd, open.first - pad), Math.min(this.frame, open.last + 1 + pad)];
  }

  private close(): void {
    const interval = this.padded();
    if (interval) this.closed.push(...interval);
    this.open = null;
  }
}
