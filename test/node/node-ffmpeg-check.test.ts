import { execFile } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkFfmpeg } from "../../inference-node/media/ffmpeg-path.ts";

/** The node runs only on an ffmpeg it can trust with the media pins: 5.0 or newer, found. */

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-ffmpeg-check-"));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** A script that answers `-version` like an ffmpeg build printing `versionLine`. */
function fakeFfmpeg(name: string, versionLine: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho '${versionLine}'\necho 'built with gcc 7 (Debian 7.3.0-19)'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("checkFfmpeg", () => {
  it("accepts the system ffmpeg (Debian's 5.1)", async () => {
    expect(await checkFfmpeg("ffmpeg")).toMatch(/^ffmpeg version \d+\.\d+/);
  });

  it("refuses a missing binary and one older than 5.0, saying what to install", async () => {
    await expect(checkFfmpeg(join(dir, "no-such-ffmpeg"))).rejects.toThrow(
      /no-such-ffmpeg: not found; install ffmpeg 5\.0 or newer/,
    );
    // a 4.x static build, as bundled ffmpeg packages ship
    const old = fakeFfmpeg("ffmpeg-4", "ffmpeg version 4.1-static https://johnvansickle.com/ffmpeg/");
    await expect(checkFfmpeg(old)).rejects.toThrow(/is 4\.1, older than 5\.0; install ffmpeg 5\.0/);
    const garbled = fakeFfmpeg("not-ffmpeg", "hello");
    await expect(checkFfmpeg(garbled)).rejects.toThrow(/reports no version I can read/);
  });

  it("accepts newer releases and development snapshots", async () => {
    expect(await checkFfmpeg(fakeFfmpeg("ffmpeg-7", "ffmpeg version 7.1.1 Copyright (c) 2000-2025"))).toMatch(
      /7\.1\.1/,
    );
    expect(await checkFfmpeg(fakeFfmpeg("ffmpeg-git", "ffmpeg version N-118000-g1234abcd"))).toMatch(/N-/);
  });
});

describe("the node's startup", () => {
  /** Starts the node as `npm run node` does and returns how it ended. */
  async function startNode(ffmpeg: string) {
    const run = promisify(execFile)(
      join("node_modules", ".bin", "tsx"),
      ["inference-node/main.ts", "--worker-url", "http://127.0.0.1:9", "--token", "test-token-123"],
      { env: { ...process.env, FFMPEG_PATH: ffmpeg, VOXEDGE_LIVE_CAPACITY: "0" }, timeout: 60_000 },
    );
    return run.then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
  }

  it("refuses to start, with a clear message, on a missing or pre-5.0 ffmpeg", async () => {
    const missing = await startNode(join(dir, "missing-ffmpeg"));
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/inference node failed to start/);
    expect(missing.output).toMatch(/missing-ffmpeg: not found; install ffmpeg 5\.0 or newer/);
    const old = await startNode(fakeFfmpeg("ffmpeg-4.4", "ffmpeg version 4.4.2-0ubuntu0.22.04.1"));
    expect(old.code).toBe(1);
    expect(old.output).toMatch(/is 4\.4, older than 5\.0/);
  }, 120_000);
});
