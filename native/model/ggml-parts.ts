/**
 * Building blocks of a ggml whisper model file: seeded random numbers, float16 encoding,
 * the Slaney mel filterbank, positional sinusoids and a synthetic vocabulary.
 */

/** Seeded normal(0, 1) source: mulberry32 uniforms through Box-Muller. Same seed, same numbers. */
export class NormalRandom {
  private state: number;
  private spare: number | null = null;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in (0, 1]. */
  uniform(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967296;
  }

  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const theta = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary16 bits of `value`, round to nearest even (what numpy's astype(float16) does). */
export function toFloat16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let h = mant >>> shift;
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}

const hzToMel = (hz: number): number =>
  hz < 1000 ? hz / (200 / 3) : 15 + Math.log(hz / 1000) / (Math.log(6.4) / 27);
const melToHz = (mel: number): number =>
  mel < 15 ? (mel * 200) / 3 : 1000 * Math.exp((Math.log(6.4) / 27) * (mel - 15));

/**
 * librosa.filters.mel(sr, n_fft, n_mels) with its defaults (Slaney mel scale, Slaney area norm),
 * row-major [nMels][nFft/2 + 1]: the table whisper's converter stores and whisper.cpp applies.
 */
export function slaneyMelFilterbank(sampleRate = 16000, nFft = 400, nMels = 80): Float32Array {
  const nBins = nFft / 2 + 1;
  const fftFreqs = Array.from({ length: nBins }, (_, j) => (j * sampleRate) / nFft);
  const melMax = hzToMel(sampleRate / 2);
  const melF = Array.from({ length: nMels + 2 }, (_, i) => melToHz((i * melMax) / (nMels + 1)));
  const out = new Float32Array(nMels * nBins);
  for (let i = 0; i < nMels; i++) {
    const [lo, mid, hi] = [melF[i] ?? 0, melF[i + 1] ?? 0, melF[i + 2] ?? 0];
    const enorm = 2 / (hi - lo);
    for (let j = 0; j < nBins; j++) {
      const f = fftFreqs[j] ?? 0;
      const w = Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid)));
      out[i * nBins + j] = w * enorm;
    }
  }
  return out;
}

/** whisper's sinusoids(length, channels): [sin | cos] per position, row-major [length][channels]. */
export function sinusoids(length: number, channels: number): Float32Array {
  const half = channels / 2;
  const inc = Math.log(10000) / (half - 1);
  const out = new Float32Array(length * channels);
  for (let t = 0; t < length; t++) {
    for (let c = 0; c < half; c++) {
      const angle = t * Math.exp(-inc * c);
      out[t * channels + c] = Math.sin(angle);
      out[t * channels + half + c] = Math.cos(angle);
    }
  }
  return out;
}

const ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "y"];
const ONSETS2 = ["ch", "sh", "th", "st", "tr", "pl", "gr", "br", "cl", "sp", "qu", "wh"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "ee", "oo", "y"];
const CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rd", "x"];
const PUNCT = [".", ",", "?", "!", ":", ";", "'s", "'t", "-", "...", '"', "(", ")"];

/**
 * 50257 text tokens shaped like GPT-2's byte-level BPE vocabulary: the 256 single bytes first
 * (so any prompt tokenizes), then digits, punctuation and made-up words with and without a leading
 * space. Id 50256 is empty, as in the multilingual whisper vocabulary. Fixed, seed independent.
 */
export function syntheticVocab(count = 50257): Buffer[] {
  const out: Buffer[] = [];
  const seen = new Set<string>();
  const add = (s: string): void => {
    if (out.length < count - 1 && !seen.has(s)) {
      seen.add(s);
      out.push(Buffer.from(s, "utf8"));
    }
  };
  for (let b = 0; b < 256; b++) {
    out.push(Buffer.from([b]));
    seen.add(String.fromCharCode(b));
  }
  for (let n = 0; n < 1000; n++) add(n < 100 ? ` ${n}` : String(n));
  for (const p of PUNCT) add(p);
  const rng = new NormalRandom(0x5eed);
  const pick = (list: string[]): string => list[Math.floor(rng.uniform() * list.length) % list.length] ?? "";
  const syllable = (): string =>
    (rng.uniform() < 0.2 ? pick(ONSETS2) : pick(ONSETS)) + pick(VOWELS) + pick(CODAS);
  while (out.length < count - 1) {
    const n = 1 + Math.floor(rng.uniform() * 3.2);
    let word = "";
    for (let i = 0; i < n; i++) word += syllable();
    const r = rng.uniform();
    if (r < 0.55) add(` ${word}`);
    else if (r < 0.85) add(word);
    else add(` ${word.charAt(0).toUpperCase()}${word.slice(1)}`);
  }
  out.push(Buffer.alloc(0));
  return out;
}
