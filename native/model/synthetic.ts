/**
 * Random-weight whisper models in the real ggml format and real dimensions. Compute cost depends
 * only on the dimensions, so they serve tests and benchmarks where real weights cannot be fetched.
 *
 * CLI: `npm run model:synthetic -- [micro|tiny|base|all]` writes models/synthetic-<size>.bin.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { NormalRandom, sinusoids, slaneyMelFilterbank, syntheticVocab, toFloat16Bits } from "./ggml-parts.ts";

export type SyntheticSize = "micro" | "tiny" | "base";

interface Dims {
  state: number;
  heads: number;
  layers: number;
}

/** micro is not a whisper size: width 64, one layer, one head, for fast unit tests (type "unknown"). */
export const SYNTHETIC_DIMS: Record<SyntheticSize, Dims> = {
  micro: { state: 64, heads: 1, layers: 1 },
  tiny: { state: 384, heads: 6, layers: 4 },
  base: { state: 512, heads: 8, layers: 6 },
};

const N_VOCAB = 51865; // multilingual; whisper.cpp adds the special tokens above the 50257 text ones
const N_AUDIO_CTX = 1500;
const N_TEXT_CTX = 448;
const N_MELS = 80;
const GGML_MAGIC = 0x67676d6c;
const CHUNK = 1 << 20;

/** How a tensor is filled: N(0, 0.02), zeros, ones or whisper's encoder sinusoids. */
type Init = "normal" | "zeros" | "ones" | "sinusoids";
interface TensorSpec {
  name: string;
  ne: number[];
  f16: boolean;
  init: Init;
}

function blockTensors(prefix: string, d: number, cross: boolean): TensorSpec[] {
  const mat = (name: string, ne: number[]): TensorSpec => ({
    name: prefix + name,
    ne,
    f16: true,
    init: "normal",
  });
  const vec = (name: string, n: number, init: Init = "zeros"): TensorSpec => ({
    name: prefix + name,
    ne: [n],
    f16: false,
    init,
  });
  const attn = (a: string): TensorSpec[] => [
    mat(`${a}.query.weight`, [d, d]),
    vec(`${a}.query.bias`, d),
    mat(`${a}.key.weight`, [d, d]),
    mat(`${a}.value.weight`, [d, d]),
    vec(`${a}.value.bias`, d),
    mat(`${a}.out.weight`, [d, d]),
    vec(`${a}.out.bias`, d),
    vec(`${a}_ln.weight`, d, "ones"),
    vec(`${a}_ln.bias`, d),
  ];
  return [
    ...attn("attn"),
    ...(cross ? attn("cross_attn") : []),
    mat("mlp.0.weight", [d, 4 * d]),
    vec("mlp.0.bias", 4 * d),
    mat("mlp.2.weight", [4 * d, d]),
    vec("mlp.2.bias", d),
    vec("mlp_ln.weight", d, "ones"),
    vec("mlp_ln.bias", d),
  ];
}

/** Every tensor whisper.cpp expects (11 + 15 per encoder layer + 24 per decoder layer), ggml `ne` order. */
function tensorSpecs({ state: d, layers }: Dims): TensorSpec[] {
  const specs: TensorSpec[] = [
    { name: "encoder.positional_embedding", ne: [d, N_AUDIO_CTX], f16: false, init: "sinusoids" },
    { name: "encoder.conv1.weight", ne: [3, N_MELS, d], f16: true, init: "normal" },
    { name: "encoder.conv1.bias", ne: [1, d], f16: false, init: "zeros" },
    { name: "encoder.conv2.weight", ne: [3, d, d], f16: true, init: "normal" },
    { name: "encoder.conv2.bias", ne: [1, d], f16: false, init: "zeros" },
    { name: "encoder.ln_post.weight", ne: [d], f16: false, init: "ones" },
    { name: "encoder.ln_post.bias", ne: [d], f16: false, init: "zeros" },
    { name: "decoder.positional_embedding", ne: [d, N_TEXT_CTX], f16: false, init: "normal" },
    { name: "decoder.token_embedding.weight", ne: [d, N_VOCAB], f16: true, init: "normal" },
    { name: "decoder.ln.weight", ne: [d], f16: false, init: "ones" },
    { name: "decoder.ln.bias", ne: [d], f16: false, init: "zeros" },
  ];
  for (let i = 0; i < layers; i++) specs.push(...blockTensors(`encoder.blocks.${i}.`, d, false));
  for (let i = 0; i < layers; i++) specs.push(...blockTensors(`decoder.blocks.${i}.`, d, true));
  return specs;
}

const headers = new Map<Dims, Buffer>();

function header(dims: Dims): Buffer {
  const cached = headers.get(dims);
  if (cached) return cached;
  const { state: d, heads: h, layers: l } = dims;
  const hparams = [N_VOCAB, N_AUDIO_CTX, d, h, l, N_TEXT_CTX, d, h, l, N_MELS, 1];
  const filters = slaneyMelFilterbank(16000, 400, N_MELS);
  const vocab = syntheticVocab();
  const parts: Buffer[] = [Buffer.from(Int32Array.from([GGML_MAGIC, ...hparams, N_MELS, 201]).buffer)];
  parts.push(Buffer.from(filters.buffer, filters.byteOffset, filters.byteLength));
  parts.push(Buffer.from(Int32Array.of(vocab.length).buffer));
  for (const word of vocab) parts.push(Buffer.from(Int32Array.of(word.length).buffer), word);
  const out = Buffer.concat(parts);
  headers.set(dims, out);
  return out;
}

function tensorHeader(spec: TensorSpec): Buffer {
  const name = Buffer.from(spec.name, "utf8");
  const ints = Int32Array.from([spec.ne.length, name.length, spec.f16 ? 1 : 0, ...spec.ne]);
  return Buffer.concat([Buffer.from(ints.buffer), name]);
}

const elements = (spec: TensorSpec): number => spec.ne.reduce((a, b) => a * b, 1);

/** Bytes of the file `writeSyntheticModel` produces for `size`: the cache key. */
export function syntheticModelBytes(size: SyntheticSize): number {
  let total = header(SYNTHETIC_DIMS[size]).length;
  for (const spec of tensorSpecs(SYNTHETIC_DIMS[size])) {
    total += tensorHeader(spec).length + elements(spec) * (spec.f16 ? 2 : 4);
  }
  return total;
}

/** Tensor data in chunks of at most CHUNK elements, so a 150 MB model never sits in memory whole. */
function* tensorData(spec: TensorSpec, rng: NormalRandom, d: number): Generator<Buffer> {
  const n = elements(spec);
  const fixed = spec.init === "sinusoids" ? sinusoids(n / d, d) : null;
  for (let start = 0; start < n; start += CHUNK) {
    const len = Math.min(CHUNK, n - start);
    const values = new Float32Array(len);
    for (let i = 0; i < len; i++) {
      if (spec.init === "normal") values[i] = rng.normal() * 0.02;
      else if (spec.init === "ones") values[i] = 1;
      else if (fixed) values[i] = fixed[start + i] ?? 0;
    }
    if (!spec.f16) {
      yield Buffer.from(values.buffer);
      continue;
    }
    const half = new Uint16Array(len);
    for (let i = 0; i < len; i++) half[i] = toFloat16Bits(values[i] ?? 0);
    yield Buffer.from(half.buffer);
  }
}

/** Writes a model to `file` atomically (temp file + rename). Deterministic per `seed`. */
export async function writeSyntheticModel(file: string, size: SyntheticSize, seed = 1): Promise<void> {
  const dims = SYNTHETIC_DIMS[size];
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const handle = await open(tmp, "w");
  try {
    await handle.write(header(dims));
    const rng = new NormalRandom(seed);
    for (const spec of tensorSpecs(dims)) {
      await handle.write(tensorHeader(spec));
      for (const chunk of tensorData(spec, rng, dims.state)) await handle.write(chunk);
    }
    await handle.close();
    await rename(tmp, file);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Where the vocabulary starts in a ggml whisper header: magic, 11 hparams, n_mel and n_fft, the mel filters. */
const VOCAB_OFFSET = 4 * (1 + 11 + 2) + 4 * N_MELS * 201;

/**
 * Whether `file` is a model `writeSyntheticModel` wrote, whatever its name or size: its vocabulary
 * section is byte for byte the synthetic one (made-up words after the 256 single bytes), which no
 * published whisper model has (theirs is GPT-2's). The check reads only the header (~0.5 MB).
 *
 * @example
 * await isSyntheticModelFile("models/synthetic-base.bin"); // true
 * await isSyntheticModelFile("models/ggml-base.bin"); // false
 */
export async function isSyntheticModelFile(file: string): Promise<boolean> {
  const expected = header(SYNTHETIC_DIMS.micro);
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(expected.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return (
      bytesRead === head.length &&
      head.readInt32LE(0) === GGML_MAGIC &&
      head.subarray(VOCAB_OFFSET).equals(expected.subarray(VOCAB_OFFSET))
    );
  } finally {
    await handle.close();
  }
}

const MODELS_DIR = fileURLToPath(new URL("../../models/", import.meta.url));

/**
 * Path of `models/synthetic-<size>.bin`, generating it first unless a file of the right size exists.
 *
 * @example
 * const file = await ensureSyntheticModel("micro");
 * const model = await loadModel(file);
 */
export async function ensureSyntheticModel(size: SyntheticSize, dir = MODELS_DIR): Promise<string> {
  if (!(size in SYNTHETIC_DIMS)) throw new Error(`unknown synthetic model size '${size}'`);
  const file = path.join(dir, `synthetic-${size}.bin`);
  const existing = await stat(file).catch(() => null);
  if (existing?.size === syntheticModelBytes(size)) return file;
  await writeSyntheticModel(file, size);
  return file;
}

async function main(args: string[]): Promise<void> {
  const arg = args[0] ?? "micro";
  const sizes = arg === "all" ? (Object.keys(SYNTHETIC_DIMS) as SyntheticSize[]) : [arg];
  for (const size of sizes) {
    if (!(size in SYNTHETIC_DIMS)) {
      console.error(`unknown size '${size}'; use micro, tiny, base or all`);
      process.exitCode = 2;
      return;
    }
    const started = performance.now();
    const file = await ensureSyntheticModel(size as SyntheticSize);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`${file} (${syntheticModelBytes(size as SyntheticSize)} bytes, ${seconds} s)`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv.slice(2));
}
