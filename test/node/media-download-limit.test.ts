import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../inference-node/config.ts";
import { MediaError } from "../../inference-node/media/media-error.ts";
import { fetchMedia, type MediaSourceOptions } from "../../inference-node/pipeline/fetch-media.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import { parseAllowlist } from "../../protocol/url-policy.ts";

// A media URL that never finishes: one that trickles a byte at a time, one that answers no headers.
// Without a bound, either holds a node's transcription slot for as long as its server likes.

const held = new Set<ServerResponse>();
const server = createServer((req, res) => {
  held.add(res);
  res.on("close", () => held.delete(res));
  if (req.url === "/trickle.mp3") {
    res.writeHead(200, { "content-type": "audio/mpeg" });
    const drip = setInterval(() => res.write(Buffer.alloc(1, 0xff)), 50);
    res.on("close", () => clearInterval(drip));
  } else if (req.url === "/steady.mp3") {
    // 40 KiB/s for a second
    res.writeHead(200, { "content-type": "audio/mpeg" });
    let sent = 0;
    const drip = setInterval(() => {
      res.write(Buffer.alloc(4096, 0xff));
      if (++sent === 10) {
        clearInterval(drip);
        res.end();
      }
    }, 100);
    res.on("close", () => clearInterval(drip));
  } else if (req.url === "/whole.mp3") {
    res.writeHead(200, { "content-type": "audio/mpeg" });
    res.end(Buffer.alloc(4096, 0xff));
  }
  // any other path: the request is read and never answered
});
let origin = "";
let allowlist: ReadonlySet<string>;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  allowlist = parseAllowlist(`127.0.0.1:${port}`);
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function options(
  downloadMaxMs: number,
  signal = new AbortController().signal,
  minRate?: MediaSourceOptions["minRate"],
): MediaSourceOptions {
  return {
    client: {} as WorkerClient, // URL sources never call the Worker
    maxBytes: 1024 ** 2,
    allowlist,
    tempDir: tmpdir(),
    signal,
    downloadMaxMs,
    minRate,
  };
}

const urlSource = (path: string) => ({
  lease_id: "lease-1",
  source: { type: "url" as const, url: `${origin}${path}` },
  source_path: null,
});

describe("a media download is bounded in time", () => {
  it("fails a URL that trickles bytes past the limit as media_unreachable, naming the limit", async () => {
    const started = performance.now();
    const error = await fetchMedia(urlSource("/trickle.mp3"), options(600)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe("media_unreachable");
    expect((error as MediaError).message).toMatch(/did not finish downloading within the 0\.6 s limit/);
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("fails a URL that never answers its request the same way", async () => {
    const error = await fetchMedia(urlSource("/silent"), options(600)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe("media_unreachable");
    expect((error as MediaError).message).toMatch(/within the 0\.6 s limit/);
  });

  it("still downloads media that arrives within the limit", async () => {
    const media = await fetchMedia(urlSource("/whole.mp3"), options(5_000));
    try {
      expect(media.bytes).toBe(4096);
    } finally {
      await media.remove();
    }
  });

  it("leaves a task's own abort (a lost lease, a cancel) as it is, not a media failure", async () => {
    const lease = new AbortController();
    setTimeout(() => lease.abort(new Error("lease lost")), 200);
    const error = await fetchMedia(urlSource("/trickle.mp3"), options(10_000, lease.signal)).catch(
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(MediaError);
    expect(lease.signal.aborted).toBe(true);
  });
});

describe("a media download is held to a minimum rate", () => {
  // a trickle well inside the time limit still held a slot for all of it (30 minutes by default)
  it("fails a URL slower than the minimum over a window as media_unreachable, naming the rate", async () => {
    const started = performance.now();
    const error = await fetchMedia(
      urlSource("/trickle.mp3"),
      options(10_000, undefined, { bytesPerSec: 1024, windowMs: 300 }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaError);
    expect((error as MediaError).code).toBe("media_unreachable");
    expect((error as MediaError).message).toMatch(/arrived at less than 1 KiB\/s for 0\.3 s/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("lets a download above the minimum run as long as it needs", async () => {
    const media = await fetchMedia(
      urlSource("/steady.mp3"),
      options(10_000, undefined, { bytesPerSec: 8 * 1024, windowMs: 300 }),
    );
    try {
      expect(media.bytes).toBe(40_960);
    } finally {
      await media.remove();
    }
  });
});

describe("VOXEDGE_MEDIA_MIN_BYTES_PER_SEC", () => {
  const base = { NODE_TOKEN: "node-token-1234" };

  it("defaults to 8 KiB/s, and 0 turns the minimum off", () => {
    expect(loadConfig([], base).mediaMinBytesPerSec).toBe(8192);
    expect(loadConfig([], { ...base, VOXEDGE_MEDIA_MIN_BYTES_PER_SEC: "0" }).mediaMinBytesPerSec).toBe(0);
    expect(() => loadConfig([], { ...base, VOXEDGE_MEDIA_MIN_BYTES_PER_SEC: "-1" })).toThrow(
      /inference node configuration: mediaMinBytesPerSec/,
    );
  });
});

describe("VOXEDGE_MEDIA_DOWNLOAD_MAX_SEC", () => {
  const base = { NODE_TOKEN: "node-token-1234" };

  it("defaults to 30 minutes, enough for the 2 GB limit at 1.2 MB/s", () => {
    expect(loadConfig([], base).mediaDownloadMaxSec).toBe(1800);
  });

  it("is read from the environment, and a value under a second is refused", () => {
    expect(loadConfig([], { ...base, VOXEDGE_MEDIA_DOWNLOAD_MAX_SEC: "120" }).mediaDownloadMaxSec).toBe(120);
    expect(() => loadConfig([], { ...base, VOXEDGE_MEDIA_DOWNLOAD_MAX_SEC: "0" })).toThrow(
      /inference node configuration: mediaDownloadMaxSec/,
    );
  });
});
