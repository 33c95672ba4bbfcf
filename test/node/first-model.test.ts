import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formatDuration, progressReporter, renderProgress } from "../../native/model/progress.ts";
import { isSyntheticModelFile } from "../../native/model/synthetic.ts";
import { defaultRegistry, type RegistryEntry } from "../../protocol/model-registry.ts";
import {
  ensureFirstModel,
  type FirstModelOptions,
  firstModelSettings,
  syntheticBanner,
} from "../../scripts/lib/first-model.ts";
import { tempDir } from "../native/helpers.ts";

/** A stand-in for ggml-base.bin: big enough for several progress lines and a cut in the middle. */
const BODY = randomBytes(2 * 1024 * 1024 + 77);
const SHA1 = createHash("sha1").update(BODY).digest("hex");
const ENTRY = defaultRegistry.models[0] as RegistryEntry;

interface Behaviour {
  /** On the first request, drop the connection after this many body bytes. */
  cutFirstAt?: number;
  status?: number;
}

let behaviour: Behaviour = {};
let requests: { url: string; range: string | undefined }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", range: req.headers.range });
    if (behaviour.status || req.url !== "/ggml-base.bin") {
      res.writeHead(behaviour.status ?? 404).end("no such file");
      return;
    }
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0);
    const headers = { "content-length": String(BODY.length - start), "accept-ranges": "bytes" };
    if (start > 0) {
      res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${BODY.length - 1}/${BODY.length}` });
    } else {
      res.writeHead(200, headers);
    }
    if (behaviour.cutFirstAt !== undefined && requests.length === 1) {
      res.write(BODY.subarray(start, behaviour.cutFirstAt));
      setTimeout(() => res.destroy(), 50);
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
let out: string;
let n = 0;
beforeEach(async () => {
  behaviour = {};
  requests = [];
  out = "";
  dir = path.join(await tempDir(`first-model-${n++}`), "models");
});

/** As npm start calls it, with the settings read from an environment. */
const start = (env: NodeJS.ProcessEnv, extra: Partial<FirstModelOptions> = {}) =>
  ensureFirstModel({
    ...firstModelSettings(env),
    entry: ENTRY,
    modelsDir: dir,
    tty: false,
    write: (text) => {
      out += text;
    },
    sha1: SHA1,
    syntheticSize: "micro",
    ...extra,
  });

describe("npm start's first model", () => {
  it("downloads the registry default from VOXEDGE_MODEL_BASE_URL, with progress and where it went", async () => {
    const model = await start({ VOXEDGE_MODEL_BASE_URL: baseUrl });
    expect(model).toEqual({ path: path.join(dir, "ggml-base.bin"), synthetic: false, reason: null });
    expect((await readFile(model.path)).equals(BODY)).toBe(true);
    expect(requests.map((r) => r.url)).toEqual(["/ggml-base.bin"]);
    const lines = out.trim().split("\n");
    const progress = lines.filter((line) => line.startsWith("ggml-base.bin ["));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toMatch(/ 100\.0% 2\.1\/2\.1 MB [\d.]+ MB\/s ETA 0:00$/);
    expect(lines.at(-1)).toContain(`is in ${model.path}`);
    expect(lines.at(-1)).toContain("npm run model:download -- NAME");

    requests = [];
    expect(await start({ VOXEDGE_MODEL_BASE_URL: baseUrl })).toMatchObject({ synthetic: false });
    expect(requests).toHaveLength(0);
  });

  it("resumes after the server cuts the transfer", async () => {
    behaviour.cutFirstAt = 900_000;
    const model = await start({ VOXEDGE_MODEL_BASE_URL: baseUrl });
    expect(model.synthetic).toBe(false);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.range).toBeUndefined();
    // The second asks for the rest of what arrived before the cut (all of it, or less if the cut lost some).
    const from = Number(/^bytes=(\d+)-$/.exec(requests[1]?.range ?? "")?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(900_000);
    expect((await readFile(model.path)).equals(BODY)).toBe(true);
  });

  it("falls back to the synthetic model on a hash mismatch and deletes the bad file", async () => {
    const model = await start({ VOXEDGE_MODEL_BASE_URL: baseUrl }, { sha1: "0".repeat(40) });
    expect(model.synthetic).toBe(true);
    expect(await isSyntheticModelFile(model.path)).toBe(true);
    expect(model.reason).toContain(
      `SHA-1 mismatch for ggml-base.bin: expected ${"0".repeat(40)}, got ${SHA1}`,
    );
    expect(model.reason).toContain("the bad file was deleted");
    expect(await readdir(dir)).toEqual([]);
  });

  it("falls back on a 404", async () => {
    behaviour.status = 404;
    const model = await start({ VOXEDGE_MODEL_BASE_URL: baseUrl });
    expect(model).toMatchObject({ synthetic: true, reason: expect.stringContaining("HTTP 404") });
    expect(requests).toHaveLength(1);
  });

  it("makes no request at all with VOXEDGE_OFFLINE=1", async () => {
    const model = await start({ VOXEDGE_MODEL_BASE_URL: baseUrl, VOXEDGE_OFFLINE: "1" });
    expect(model).toMatchObject({ synthetic: true, reason: "VOXEDGE_OFFLINE=1: no download attempted" });
    expect(requests).toHaveLength(0);
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });

  it("falls back when the server cannot be reached, keeping what arrived for next time", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "ggml-base.bin.part"), BODY.subarray(0, 1000));
    const model = await start({ VOXEDGE_MODEL_BASE_URL: `http://127.0.0.1:${port}` });
    expect(model).toMatchObject({ synthetic: true, reason: expect.stringContaining("cannot reach") });
    expect(await readdir(dir)).toEqual(["ggml-base.bin.part"]);
  }, 30_000);

  it("rejects bad settings naming the variable", () => {
    expect(() => firstModelSettings({ VOXEDGE_OFFLINE: "yes" })).toThrow(/VOXEDGE_OFFLINE/);
    expect(() => firstModelSettings({ VOXEDGE_MODEL_BASE_URL: "not a url" })).toThrow(
      /VOXEDGE_MODEL_BASE_URL/,
    );
    expect(firstModelSettings({})).toEqual({ offline: false, baseUrl: undefined });
  });

  it("prints a banner naming the synthetic model, why, and the fix", () => {
    const banner = syntheticBanner(ENTRY, {
      path: "models/synthetic-base.bin",
      synthetic: true,
      reason: "VOXEDGE_OFFLINE=1: no download attempted",
    });
    expect(banner).toContain("SYNTHETIC MODEL: the node serves models/synthetic-base.bin");
    expect(banner).toContain("TRANSCRIPTS ARE NOISE");
    expect(banner).toContain("Why: VOXEDGE_OFFLINE=1: no download attempted.");
    expect(banner).toContain("Fix: npm run model:download -- base, then restart npm start.");
    const widths = new Set(banner.split("\n").map((line) => line.length));
    expect(widths.size).toBe(1);
  });
});

describe("download progress", () => {
  it("renders bar, bytes, speed and ETA", () => {
    expect(renderProgress("ggml-base.bin", { received: 71e6, total: 142e6, bytesPerSecond: 10e6 })).toBe(
      "ggml-base.bin [############.............]  50.0% 71.0/142.0 MB 10.0 MB/s ETA 0:07",
    );
    expect(renderProgress("f", { received: 5e5, total: null, bytesPerSecond: null })).toBe(
      "f 0.5 MB -- MB/s",
    );
    expect(renderProgress("f", { received: 0, total: 1e6, bytesPerSecond: null })).toBe(
      "f [.........................]   0.0% 0.0/1.0 MB -- MB/s ETA --:--",
    );
    expect(formatDuration(3725)).toBe("1:02:05");
    expect(formatDuration(65)).toBe("1:05");
  });

  it("redraws one line on a terminal, at most ten times a second", () => {
    let clock = 0;
    let text = "";
    const reporter = progressReporter({
      label: "m",
      tty: true,
      write: (t) => {
        text += t;
      },
      now: () => clock,
    });
    reporter.onProgress({ received: 1e6, total: 10e6 });
    clock = 50;
    reporter.onProgress({ received: 2e6, total: 10e6 }); // too soon: skipped
    clock = 1000;
    reporter.onProgress({ received: 5e6, total: 10e6 });
    clock = 1010;
    reporter.onProgress({ received: 10e6, total: 10e6 }); // the last one always shows
    reporter.finish();
    const draws = text.split("\r").filter(Boolean);
    expect(draws).toHaveLength(3);
    expect(draws[1]).toBe("m [############.............]  50.0% 5.0/10.0 MB 4.0 MB/s ETA 0:01\x1b[K");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.slice(0, -1)).not.toContain("\n");
  });

  it("writes a plain line per 10 % when not a terminal", () => {
    const lines: string[] = [];
    const reporter = progressReporter({ label: "m", tty: false, write: (t) => lines.push(t) });
    for (let received = 0; received <= 100; received += 1) reporter.onProgress({ received, total: 100 });
    reporter.finish();
    expect(lines).toHaveLength(11);
    expect(lines.every((line) => line.endsWith("\n") && !line.includes("\r"))).toBe(true);
  });
});
