/**
 * Front end of the diarizer: radix-2 FFT, mel filterbank, DCT-II and a streaming MFCC extractor for
 * 16 kHz mono PCM. Everything is plain TypeScript so the node needs no native DSP dependency.
 */

/** Sample rate every diarizer stage assumes. */
export const SAMPLE_RATE = 16_000;
/** Analysis frame: 25 ms. */
export const FRAME_LENGTH = 400;
/** Frame hop: 10 ms, so 100 frames per second. */
export const FRAME_HOP = 160;
const FFT_SIZE = 512;
/** Cepstra the diarizer keeps per frame (c1..c19). */
export const CEPSTRAL_DIMS = 19;
/** Mel filters per frame. */
export const MEL_BANDS = 40;

/** Cached per size: twiddle factors e^(-2πik/n) for k < n/2 and the bit-reversal permutation. */
interface FftTables {
  cos: Float64Array;
  sin: Float64Array;
  reversed: Uint32Array;
}
const tableCache = new Map<number, FftTables>();
function tables(n: number): FftTables {
  let t = tableCache.get(n);
  if (!t) {
    const bits = Math.log2(n);
    t = {
      cos: Float64Array.from({ length: n / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / n)),
      sin: Float64Array.from({ length: n / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / n)),
      reversed: Uint32Array.from({ length: n }, (_, i) => {
        let r = 0;
        for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
        return r;
      }),
    };
    tableCache.set(n, t);
  }
  return t;
}

/**
 * In-place iterative radix-2 complex FFT of size `re.length` (a power of two).
 *
 * @example
 * const re = new Float64Array([1, 0, 0, 0]);
 * const im = new Float64Array(4);
 * fft(re, im); // re = [1, 1, 1, 1]: an impulse has a flat spectrum
 */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n !== im.length || n === 0 || (n & (n - 1)) !== 0) {
    throw new Error(`fft: size must be a power of two with matching parts, got ${n}/${im.length}`);
  }
  const { cos, sin, reversed } = tables(n);
  for (let i = 0; i < n; i++) {
    const j = reversed[i] ?? 0;
    if (i < j) {
      const [r, m] = [re[i] ?? 0, im[i] ?? 0];
      re[i] = re[j] ?? 0;
      im[i] = im[j] ?? 0;
      re[j] = r;
      im[j] = m;
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const stride = n / size;
    for (let k = 0; k < half; k++) {
      const wr = cos[k * stride] ?? 0;
      const wi = sin[k * stride] ?? 0;
      for (let start = k; start < n; start += size) {
        const odd = start + half;
        const xr = (re[odd] ?? 0) * wr - (im[odd] ?? 0) * wi;
        const xi = (re[odd] ?? 0) * wi + (im[odd] ?? 0) * wr;
        re[odd] = (re[start] ?? 0) - xr;
        im[odd] = (im[start] ?? 0) - xi;
        re[start] = (re[start] ?? 0) + xr;
        im[start] = (im[start] ?? 0) + xi;
      }
    }
  }
}

/**
 * Power spectrum |X[k]|^2, k = 0..n/2, of the real signal `x` (length n, a power of two), computed
 * with one complex FFT of half the size: even samples as the real part, odd ones as the imaginary.
 * `scratch` must hold n / 2 values per part and is overwritten.
 *
 * @example
 * const power = new Float64Array(257);
 * powerSpectrum(frame512, power, { re: new Float64Array(256), im: new Float64Array(256) });
 */
export function powerSpectrum(
  x: Float64Array,
  power: Float64Array,
  scratch: { re: Float64Array; im: Float64Array },
): void {
  const n = x.length;
  const half = n / 2;
  const { re, im } = scratch;
  for (let m = 0; m < half; m++) {
    re[m] = x[2 * m] ?? 0;
    im[m] = x[2 * m + 1] ?? 0;
  }
  fft(re, im);
  const { cos, sin } = tables(n);
  power[0] = ((re[0] ?? 0) + (im[0] ?? 0)) ** 2;
  power[half] = ((re[0] ?? 0) - (im[0] ?? 0)) ** 2;
  for (let k = 1; k < half; k++) {
    // Split Z into the spectra of the even (E) and odd (O) samples, then X[k] = E[k] + W^k O[k].
    const [a, b, c, d] = [re[k] ?? 0, im[k] ?? 0, re[half - k] ?? 0, im[half - k] ?? 0];
    const [er, ei] = [(a + c) / 2, (b - d) / 2];
    const [or, oi] = [(b + d) / 2, (c - a) / 2];
    const xr = er + (cos[k] ?? 0) * or - (sin[k] ?? 0) * oi;
    const xi = ei + (cos[k] ?? 0) * oi + (sin[k] ?? 0) * or;
    power[k] = xr * xr + xi * xi;
  }
}

const hzToMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
const melToHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);

/** One triangular mel filter: weights for the power-spectrum bins `first .. first + weights.length - 1`. */
export interface MelFilter {
  first: number;
  weights: Float64Array;
}

/**
 * Triangular filters equally spaced on the HTK mel scale between `lowHz` and `highHz`.
 *
 * @example
 * const bank = melFilterbank(40, 512, 16000, 20, 7600); // 40 filters over the 257 bins of a 512 FFT
 */
export function melFilterbank(
  count: number,
  fftSize: number,
  sampleRate: number,
  lowHz: number,
  highHz: number,
): MelFilter[] {
  const lowMel = hzToMel(lowHz);
  const edges = Array.from({ length: count + 2 }, (_, i) =>
    melToHz(lowMel + ((hzToMel(highHz) - lowMel) * i) / (count + 1)),
  );
  const binHz = sampleRate / fftSize;
  return Array.from({ length: count }, (_, m) => {
    const [left, center, right] = [edges[m] ?? 0, edges[m + 1] ?? 0, edges[m + 2] ?? 0];
    const first = Math.ceil(left / binHz);
    const last = Math.min(fftSize / 2, Math.floor(right / binHz));
    const weights = new Float64Array(Math.max(0, last - first + 1));
    for (let bin = first; bin <= last; bin++) {
      const hz = bin * binHz;
      weights[bin - first] = Math.max(
        0,
        hz <= center ? (hz - left) / (center - left) : (right - hz) / (right - center),
      );
    }
    return { first, weights };
  });
}

/**
 * Orthonormal DCT-II of `input`, keeping the first `output.length` coefficients.
 *
 * @example
 * const out = new Float64Array(2);
 * dct(new Float64Array([1, 1, 1, 1]), out); // out = [2, 0]: a constant has only a DC term
 */
export function dct(input: Float64Array, output: Float64Array): void {
  const n = input.length;
  const basis = dctBasis(n, output.length);
  for (let k = 0; k < output.length; k++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += (input[i] ?? 0) * (basis[k * n + i] ?? 0);
    output[k] = sum;
  }
}

const dctCache = new Map<string, Float64Array>();
function dctBasis(n: number, count: number): Float64Array {
  const key = `${n}:${count}`;
  let basis = dctCache.get(key);
  if (!basis) {
    basis = new Float64Array(n * count);
    for (let k = 0; k < count; k++) {
      const scale = Math.sqrt((k === 0 ? 1 : 2) / n);
      for (let i = 0; i < n; i++) basis[k * n + i] = scale * Math.cos((Math.PI * k * (i + 0.5)) / n);
    }
    dctCache.set(key, basis);
  }
  return basis;
}

/**
 * Called once per 10 ms frame with its cepstra (c1.., reused buffer), its energy in dBFS and its 40
 * log mel energies (reused buffer; what a known speaker's reference keeps, voice-reference.ts).
 */
export type FrameSink = (cepstra: Float64Array, energyDb: number, logMel: Float64Array) => void;

/**
 * Streaming MFCC extractor: 25 ms Hamming frames every 10 ms, pre-emphasis 0.97, 512-point FFT,
 * 40 mel filters over 20-7600 Hz, log, DCT-II. c0 is dropped (it only tracks loudness, which says
 * little about who speaks); the energy goes to the sink separately for the VAD. Frames sit at fixed
 * absolute positions, so any chunking of the same PCM yields bit-identical frames.
 *
 * @example
 * const mfcc = new MfccExtractor(19);
 * mfcc.push(pcmChunk, (ceps, db) => console.log(ceps[0], db));
 */
export class MfccExtractor {
  private readonly window = Float64Array.from(
    { length: FRAME_LENGTH },
    (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME_LENGTH - 1)),
  );
  private readonly filters = melFilterbank(MEL_BANDS, FFT_SIZE, SAMPLE_RATE, 20, 7600);
  private readonly frameBuf = new Float64Array(FFT_SIZE);
  private readonly power = new Float64Array(FFT_SIZE / 2 + 1);
  private readonly scratch = { re: new Float64Array(FFT_SIZE / 2), im: new Float64Array(FFT_SIZE / 2) };
  private readonly logMel = new Float64Array(MEL_BANDS);
  private readonly ceps: Float64Array;
  private readonly out: Float64Array;
  /** Samples after the last emitted frame's hop: always fewer than one frame. */
  private carry = new Float32Array(0);

  /** `dims`: cepstra kept per frame, c1..c<dims> (at most 39 with 40 mel filters). */
  constructor(dims: number) {
    this.ceps = new Float64Array(dims + 1);
    this.out = this.ceps.subarray(1);
  }

  push(pcm: Float32Array, sink: FrameSink): void {
    const buf = new Float32Array(this.carry.length + pcm.length);
    buf.set(this.carry);
    buf.set(pcm, this.carry.length);
    let start = 0;
    for (; start + FRAME_LENGTH <= buf.length; start += FRAME_HOP) this.frame(buf, start, sink);
    this.carry = buf.slice(start);
  }

  private frame(buf: Float32Array, start: number, sink: FrameSink): void {
    const frameBuf = this.frameBuf;
    const power = this.power;
    const window = this.window;
    let mean = 0;
    for (let i = 0; i < FRAME_LENGTH; i++) mean += buf[start + i] ?? 0;
    mean /= FRAME_LENGTH;
    let energy = 0;
    let prev = (buf[start] ?? 0) - mean;
    for (let i = 0; i < FRAME_LENGTH; i++) {
      const x = (buf[start + i] ?? 0) - mean;
      energy += x * x;
      frameBuf[i] = (x - 0.97 * prev) * (window[i] ?? 0);
      prev = x;
    }
    frameBuf.fill(0, FRAME_LENGTH);
    powerSpectrum(frameBuf, power, this.scratch);
    for (const [m, { first, weights }] of this.filters.entries()) {
      let sum = 0;
      for (let j = 0; j < weights.length; j++) sum += (weights[j] ?? 0) * (power[first + j] ?? 0);
      this.logMel[m] = Math.log(sum + 1e-10);
    }
    dct(this.logMel, this.ceps);
    sink(this.out, 10 * Math.log10(energy / FRAME_LENGTH + 1e-10), this.logMel);
  }
}
