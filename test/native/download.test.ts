import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lookupModel, MODEL_NAMES } from "../../native/model/catalog.ts";
import { DownloadError, downloadModel } from "../../native/model/download.ts";
import { rejectionOf, tempDir } from "./helpers.ts";

const BODY = randomBytes(3 * 1024 * 1024 + 123);
const SHA1 = createHash("sha1").update(BODY).digest("hex");

interface Behaviour {
  /** Drop the connection after this many body bytes on the first request. */
  cutFirstAt?: number;
  ignoreRange?: boolean;
  status?: number;
}

let behaviour: Behaviour = {};
let requests: { url: string; range: string | undefined }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", range: req.headers.range });
    if (behaviour.status || req.url !== "/ggml-tiny.bin") {
      res.writeHead(behaviour.status ?? 404).end("no such file");
      return;
    }
    const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const start = match && !behaviour.ignoreRange ? Number(match[1]) : 0;
    if (start >= BODY.length) {
      res.writeHead(416, { "content-range": `bytes */${BODY.length}` }).end();
      return;
    }
    const headers = { "content-length": String(BODY.length - start), "accept-ranges": "bytes" };
    if (start > 0) {
      res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${BODY.length - 1}/${BODY.length}` });
    } else {
      res.writeHead(200, headers);
    }
    if (behaviour.cutFirstAt !== undefined && requests.length === 1) {
      res.write(BODY.subarray(start, behaviour.cutFirstAt));
      setTimeout(() => res.destroy(), 50); // mid-body: the client sees a terminated transfer
      return;
    }
    res.end(BODY.subarray(start));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

let dir: string;
let n = 0;
beforeEach(async () => {
  behaviour = {};
  requests = [];
  dir = path.join(await tempDir(`download-${n++}`), "models");
});

const get = (extra: Partial<Parameters<typeof downloadModel>[0]> = {}) =>
  downloadModel({ name: "tiny", dir, baseUrl, sha1: SHA1, ...extra });

describe("downloadModel", () => {
  it("downloads, verifies SHA-1 and leaves only the final file", async () => {
    const progress: number[] = [];
    const res = await get({ onProgress: (p) => progress.push(p.received) });
    expect(res).toMatchObject({
      bytes: BODY.length,
      sha1: SHA1,
      verified: true,
      resumed: false,
      skipped: false,
    });
    expect(res.path).toBe(path.join(dir, "ggml-tiny.bin"));
    expect((await readFile(res.path)).equals(BODY)).toBe(true);
    expect(await readdir(dir)).toEqual(["ggml-tiny.bin"]);
    expect(progress.at(-1)).toBe(BODY.length);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    const again = await get();
    expect(again.skipped).toBe(true);
    expect(requests).toHaveLength(1);
  });

  it("resumes with a Range request after the server cuts the transfer", async () => {
    behaviour.cutFirstAt = 1_200_000;
    const res = await get();
    expect(res.resumed).toBe(true);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.range).toBeUndefined();
    // The rest of what arrived before the cut: all 1.2 MB, or less when the client had not read it all
    // when the socket died (a loaded machine).
    const from = Number(/^bytes=(\d+)-$/.exec(requests[1]!.range ?? "")?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(1_200_000);
    expect((await readFile(res.path)).equals(BODY)).toBe(true);
  });

  it("resumes a .part file left by an earlier run", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "ggml-tiny.bin.part"), BODY.subarray(0, 1_000_000));
    const res = await get();
    expect(requests.map((r) => r.range)).toEqual(["bytes=1000000-"]);
    expect(res.resumed).toBe(true);
    expect((await readFile(res.path)).equals(BODY)).toBe(true);
  });

  it("starts over when the server ignores the range", async () => {
    behaviour = { cutFirstAt: 500_000, ignoreRange: true };
    const res = await get();
    expect(res.resumed).toBe(false);
    expect((await readFile(res.path)).equals(BODY)).toBe(true);
  });

  it("rejects a SHA-1 mismatch and leaves no file behind", async () => {
    const err = await rejectionOf(get({ sha1: "0".repeat(40) }));
    expect(err).toBeInstanceOf(DownloadError);
    expect(err.code).toBe("ERR_CHECKSUM");
    expect(err.message).toContain(SHA1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("reports HTTP errors without retrying client errors", async () => {
    behaviour.status = 404;
    const err = await rejectionOf(get());
    expect(err).toMatchObject({ code: "ERR_HTTP", status: 404 });
    expect(err.message).toMatch(/HTTP 404/);
    expect(requests).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("rejects an unknown model name before any request", async () => {
    const err = await rejectionOf(get({ name: "huge-v9" }));
    expect(err).toMatchObject({ code: "ERR_UNKNOWN_MODEL" });
    expect(err.message).toContain("large-v3-turbo");
    expect(requests).toHaveLength(0);
  });
});

describe("catalog", () => {
  it("carries exactly the SHA-1 table of whisper.cpp's models/README.md", async () => {
    const readme = await readFile("node_modules/nodejs-whisper/cpp/whisper.cpp/models/README.md", "utf8");
    const table = [...readme.matchAll(/^\| ([\w.-]+) +\| [\d.]+ [GM]iB +\| `([0-9a-f]{40})` \|$/gm)];
    expect(table.length).toBeGreaterThan(10);
    for (const [, name, sha1] of table) expect(lookupModel(name!)?.sha1).toBe(sha1);
    const listed = new Set(table.map((m) => m[1]));
    for (const name of MODEL_NAMES) if (!listed.has(name)) expect(lookupModel(name)?.sha1).toBeNull();
  });

  it("knows the quantized names and the default URL", () => {
    expect(lookupModel("large-v3-turbo-q5_0")).toMatchObject({ file: "ggml-large-v3-turbo-q5_0.bin" });
    expect(lookupModel("base-q5_1")?.baseUrl).toBe(
      "https://huggingface.co/ggerganov/whisper.cpp/resolve/main",
    );
    expect(lookupModel("nope")).toBeNull();
  });
});

describe("model:download CLI", () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, ["--import", "tsx", "native/model/download.ts", ...args], {
      env: { ...process.env, ...env },
    }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );

  it("downloads from VOXEDGE_MODEL_BASE_URL and exits 0", async () => {
    const res = await cli(["tiny", "--dir", dir, "--sha1", SHA1], { VOXEDGE_MODEL_BASE_URL: baseUrl });
    expect(res.out).toContain("(verified)");
    expect(res.code).toBe(0);
  });

  it("exits 2 for an unknown model and 4 for a checksum mismatch", async () => {
    const unknown = await cli(["huge-v9"]);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toMatch(/unknown model 'huge-v9'/);
    const bad = await cli(["tiny", "--dir", dir, "--base-url", baseUrl, "--sha1", "f".repeat(40)]);
    expect(bad.code).toBe(4);
    expect(bad.out).toMatch(/SHA-1 mismatch/);
  });
});
