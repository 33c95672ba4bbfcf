/**
 * Downloads a published ggml whisper model with resume (HTTP Range on a `.part` file) and SHA-1
 * verification against whisper.cpp's published hashes.
 *
 * CLI: `npm run model:download -- NAME [--dir models] [--base-url URL] [--sha1 HEX]`
 * Exit codes: 0 done, 2 usage or unknown model, 3 HTTP or network failure, 4 checksum mismatch, 1 other.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { lookupModel, MODEL_NAMES } from "./catalog.ts";
import { progressReporter } from "./progress.ts";

export type DownloadErrorCode = "ERR_UNKNOWN_MODEL" | "ERR_HTTP" | "ERR_NETWORK" | "ERR_CHECKSUM";

export class DownloadError extends Error {
  constructor(
    readonly code: DownloadErrorCode,
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "DownloadError";
  }
}

export interface DownloadProgress {
  received: number;
  /** null when the server sends no length. */
  total: number | null;
}

export interface DownloadOptions {
  /** Catalog name, e.g. "base.en" or "large-v3-turbo-q5_0". */
  name: string;
  /** Target directory (default "models"). */
  dir?: string;
  /** Server prefix; the file is `${baseUrl}/ggml-NAME.bin`. Default $VOXEDGE_MODEL_BASE_URL or Hugging Face. */
  baseUrl?: string;
  /** Expected SHA-1 (mirrors, tests); default the published one. */
  sha1?: string;
  /** Attempts per download; each retry resumes from the `.part` file (default 4). */
  attempts?: number;
  onProgress?: (p: DownloadProgress) => void;
  /** Called with human-readable warnings (e.g. no published hash). */
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha1: string;
  /** False when no expected hash was known. */
  verified: boolean;
  /** True when some bytes came from an earlier, interrupted transfer. */
  resumed: boolean;
  /** True when the file was already there and nothing was fetched. */
  skipped: boolean;
}

async function sha1Of(
  file: string,
  upTo?: number,
): Promise<{ hash: ReturnType<typeof createHash>; size: number }> {
  const hash = createHash("sha1");
  let size = 0;
  const end = upTo === undefined ? undefined : upTo - 1;
  if (end === undefined || end >= 0) {
    for await (const chunk of createReadStream(file, { end })) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  }
  return { hash, size };
}

const sizeOf = async (file: string): Promise<number | null> =>
  (await stat(file).catch(() => null))?.size ?? null;

/** One HTTP attempt appending to `part` from `offset`: the total size if the server told it, and whether it resumed. */
async function fetchInto(
  url: string,
  part: string,
  offset: number,
  opts: DownloadOptions,
): Promise<{ total: number | null; ranged: boolean }> {
  const headers: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-` } : {};
  let res: Response;
  try {
    res = await fetch(url, { headers, redirect: "follow", signal: opts.signal });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new DownloadError("ERR_NETWORK", `cannot reach ${url}: ${(err as Error).message}`, undefined, {
      cause: err,
    });
  }
  if (res.status === 416 && offset > 0) {
    await res.body?.cancel();
    await rm(part, { force: true }); // our part is not a prefix of what the server has
    throw new DownloadError("ERR_NETWORK", "server rejected the resume range; restarting");
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    throw new DownloadError("ERR_HTTP", `HTTP ${res.status} ${res.statusText} for ${url}`, res.status);
  }
  const resuming = res.status === 206;
  const length = Number(res.headers.get("content-length") ?? Number.NaN);
  const rangeTotal = Number(/\/(\d+)$/.exec(res.headers.get("content-range") ?? "")?.[1] ?? Number.NaN);
  const total = resuming ? rangeTotal : length;
  const file = await open(part, resuming ? "a" : "w");
  let received = resuming ? offset : 0;
  try {
    if (!res.body) throw new DownloadError("ERR_NETWORK", `empty response body from ${url}`);
    for await (const chunk of res.body) {
      await file.write(chunk);
      received += chunk.length;
      opts.onProgress?.({ received, total: Number.isFinite(total) ? total : null });
    }
  } catch (err) {
    if (err instanceof DownloadError || opts.signal?.aborted) throw err;
    throw new DownloadError("ERR_NETWORK", `transfer interrupted: ${(err as Error).message}`, undefined, {
      cause: err,
    });
  } finally {
    await file.close();
  }
  return { total: Number.isFinite(total) ? total : null, ranged: resuming };
}

/**
 * Downloads model `name` into `dir` (default "models") as `ggml-NAME.bin`. Resumes an existing
 * `.part`; retries interrupted transfers; verifies SHA-1 and deletes the part file on mismatch.
 *
 * @example
 * const { path } = await downloadModel({ name: "base.en", onProgress: ({ received }) => console.log(received) });
 */
export async function downloadModel(opts: DownloadOptions): Promise<DownloadResult> {
  const entry = lookupModel(opts.name);
  if (!entry) {
    throw new DownloadError(
      "ERR_UNKNOWN_MODEL",
      `unknown model '${opts.name}'; known: ${MODEL_NAMES.join(", ")}`,
    );
  }
  const base = opts.baseUrl ?? process.env.VOXEDGE_MODEL_BASE_URL ?? entry.baseUrl;
  const url = `${base.replace(/\/+$/, "")}/${entry.file}`;
  const expected = (opts.sha1 ?? entry.sha1)?.toLowerCase() ?? null;
  const dir = opts.dir ?? "models";
  const dest = path.join(dir, entry.file);
  const part = `${dest}.part`;
  await mkdir(dir, { recursive: true });

  if ((await sizeOf(dest)) !== null) {
    const { hash, size } = await sha1Of(dest);
    const sha1 = hash.digest("hex");
    if (!expected || sha1 === expected) {
      return { path: dest, bytes: size, sha1, verified: expected !== null, resumed: false, skipped: true };
    }
    opts.onWarning?.(`${dest} does not match the expected SHA-1; downloading it again`);
    await rm(dest);
  }
  if (!expected) opts.onWarning?.(`no published SHA-1 for '${opts.name}': the download will not be verified`);

  let resumed = false;
  const attempts = opts.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    const offset = (await sizeOf(part)) ?? 0;
    try {
      const { total, ranged } = await fetchInto(url, part, offset, opts);
      resumed ||= ranged;
      const size = (await sizeOf(part)) ?? 0;
      if (total !== null && size < total)
        throw new DownloadError("ERR_NETWORK", `short transfer: ${size} of ${total} bytes`);
      break;
    } catch (err) {
      const retryable = err instanceof DownloadError && err.code === "ERR_NETWORK";
      const serverError = err instanceof DownloadError && err.code === "ERR_HTTP" && (err.status ?? 0) >= 500;
      if (!(retryable || serverError) || attempt >= attempts || opts.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
    }
  }

  const { hash, size } = await sha1Of(part);
  const sha1 = hash.digest("hex");
  if (expected && sha1 !== expected) {
    await rm(part, { force: true });
    throw new DownloadError(
      "ERR_CHECKSUM",
      `SHA-1 mismatch for ${entry.file}: expected ${expected}, got ${sha1}`,
    );
  }
  await rename(part, dest);
  return { path: dest, bytes: size, sha1, verified: expected !== null, resumed, skipped: false };
}

const EXIT: Record<DownloadErrorCode, number> = {
  ERR_UNKNOWN_MODEL: 2,
  ERR_HTTP: 3,
  ERR_NETWORK: 3,
  ERR_CHECKSUM: 4,
};

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseCli>;
  try {
    args = parseCli(argv);
  } catch (err) {
    console.error(
      `${(err as Error).message}\nusage: npm run model:download -- NAME [--dir models] [--base-url URL]`,
    );
    return 2;
  }
  const name = args.positionals[0];
  if (!name) {
    console.error(
      `usage: npm run model:download -- NAME [--dir DIR] [--base-url URL] [--sha1 HEX]\nmodels: ${MODEL_NAMES.join(" ")}`,
    );
    return 2;
  }
  const progress = progressReporter({
    label: `ggml-${name}.bin`,
    tty: Boolean(process.stderr.isTTY),
    write: (text) => process.stderr.write(text),
  });
  try {
    const res = await downloadModel({
      name,
      dir: args.values.dir,
      baseUrl: args.values["base-url"],
      sha1: args.values.sha1,
      onProgress: progress.onProgress,
      onWarning: (m) => console.warn(`\nwarning: ${m}`),
    });
    progress.finish();
    const how = res.skipped ? "already present" : res.resumed ? "downloaded (resumed)" : "downloaded";
    console.log(
      `${res.path}: ${how}, ${res.bytes} bytes, sha1 ${res.sha1}${res.verified ? " (verified)" : " (unverified)"}`,
    );
    return 0;
  } catch (err) {
    console.error(`\nerror: ${(err as Error).message}`);
    return err instanceof DownloadError ? EXIT[err.code] : 1;
  }
}

function parseCli(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { dir: { type: "string" }, "base-url": { type: "string" }, sha1: { type: "string" } },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
