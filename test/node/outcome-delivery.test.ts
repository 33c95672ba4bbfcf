import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { LeaseLoop } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { LeaseGoneError, WorkerClient } from "../../inference-node/worker-client.ts";
import type { CompleteRequest, FailRequest } from "../../protocol/node.ts";
import { leasesOneAtATime } from "../helpers/lease-stand-in.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

/**
 * A finished task's report on its way to the Worker: a real HTTP server stands for the Worker's
 * `/internal/v1/leases/{id}/complete` and `/fail`, answering each call by the script under test, and
 * the node's real WorkerClient sends to it.
 */

/** wrangler dev's ProxyWorker answers this (503) for a POST whose connection to the Worker was lost. */
const PROXY_LOST =
  "Your worker restarted mid-request. Please try sending the request again. Only GET or HEAD requests are retried automatically.";

type Answer = number | "drop";

interface WorkerStandIn {
  client: WorkerClient;
  completes: number;
  fails: FailRequest[];
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** Answers the n-th completion with `completeAnswers[n]` (the last one from then on): a status, or a dropped connection. */
async function workerAnswering(completeAnswers: Answer[], failStatus = 200): Promise<WorkerStandIn> {
  const stand: WorkerStandIn = { client: undefined as unknown as WorkerClient, completes: 0, fails: [] };
  const answer = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { "content-type": status === 200 ? "application/json" : "text/plain" });
    res.end(status === 200 ? "{}" : text);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.url === "/internal/v1/heartbeat") {
        const { leases } = JSON.parse(body) as { leases: { lease_id: string }[] };
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            leases: leases.map((l) => ({ lease_id: l.lease_id, state: "extended", expires_at: 1 })),
          }),
        );
      } else if (req.url?.endsWith("/complete")) {
        const next = completeAnswers[Math.min(stand.completes, completeAnswers.length - 1)] ?? 200;
        stand.completes++;
        if (next === "drop") req.socket.destroy();
        else answer(res, next, next === 503 ? PROXY_LOST : `refused with ${next}`);
      } else if (req.url?.endsWith("/fail")) {
        stand.fails.push(JSON.parse(body) as FailRequest);
        answer(res, failStatus, `refused with ${failStatus}`);
      } else {
        answer(res, 404, "no such route");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  stand.client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "token");
  return stand;
}

/** A logger whose lines are kept, parsed. */
function recordingLogger() {
  const lines: { msg: string; err?: string; code?: string }[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(line, _encoding, done) {
        lines.push(JSON.parse(String(line)));
        done();
      },
    }),
  );
  return { logger, lines };
}

const completion = { kind: "slide" } as unknown as CompleteRequest;

/** A loop serving one leased task with `stand`'s client, and how many times the task ran. */
function loopWithOneTask(stand: WorkerStandIn, logger: pino.Logger) {
  const events: string[] = [];
  const client = stand.client;
  client.lease = leasesOneAtATime(1, "slide", events) as unknown as WorkerClient["lease"];
  const runs: string[] = [];
  const loop = new LeaseLoop({
    client,
    health: () => NODE_HEALTH,
    run: async (lease) => {
      runs.push(lease.lease_id);
      return completion;
    },
    kinds: ["slide"],
    concurrency: 1,
    heartbeat: new NodeHeartbeat(client, () => NODE_HEALTH, 50, logger),
    stallMs: 60_000,
    logger,
    pollWaitMs: 50,
  });
  return { loop, runs };
}

describe("a task's outcome on its way to the Worker", () => {
  it("sends a completion again after wrangler dev's 'restarted mid-request' 503 and a dropped connection: the task ran once and did not fail", async () => {
    const stand = await workerAnswering([503, "drop", 200]);
    const { logger, lines } = recordingLogger();
    const { loop, runs } = loopWithOneTask(stand, logger);
    loop.start();
    await expect.poll(() => lines.some((l) => l.msg === "task done"), { timeout: 5_000 }).toBe(true);
    await loop.drain(100);
    expect(runs).toEqual(["lease-1"]);
    expect(stand.completes).toBe(3);
    expect(stand.fails).toEqual([]);
    const retried = lines.filter((l) => l.msg === "completion not taken; sending it again");
    expect(retried.map((l) => l.err?.slice(0, 40))).toEqual([
      `HTTP 503 ${PROXY_LOST}`.slice(0, 40),
      expect.stringContaining("fetch failed"),
    ]);
  });

  it("does not send a refusal again: a 422 fails at once, a 410 says the lease is gone, a 500 is the Worker's own error", async () => {
    for (const [status, error] of [
      [422, /complete: HTTP 422 refused with 422/],
      [410, LeaseGoneError],
      [500, /complete: HTTP 500 refused with 500/],
    ] as const) {
      const stand = await workerAnswering([status]);
      await expect(stand.client.complete("lease-1", completion)).rejects.toThrow(error);
      expect(stand.completes).toBe(1);
    }
  });

  it("stops after its budget with the Worker's last answer", async () => {
    const stand = await workerAnswering([503]);
    const started = performance.now();
    await expect(stand.client.complete("lease-1", completion, { budgetMs: 700 })).rejects.toThrow(
      `complete: HTTP 503 ${PROXY_LOST}`,
    );
    // tries at 0 and after waits of 125-250, 250-500 ms; the next wait would pass the budget
    expect(stand.completes).toBeGreaterThanOrEqual(2);
    expect(stand.completes).toBeLessThanOrEqual(3);
    expect(performance.now() - started).toBeLessThan(700);
  });

  it("still makes its first try when the retries are already ended, and no more", async () => {
    const stand = await workerAnswering([200], 503);
    const failure = { code: "internal_error", message: "x" } as const;
    await expect(stand.client.fail("lease-1", failure, { signal: AbortSignal.abort() })).rejects.toThrow(
      `fail: HTTP 503 refused with 503`,
    );
    expect(stand.fails).toHaveLength(1);
    const refused = await workerAnswering(["drop"]);
    await expect(
      refused.client.complete("lease-1", completion, { signal: AbortSignal.abort() }),
    ).rejects.toThrow("fetch failed");
    expect(refused.completes).toBe(1);
  });

  it("a drain ends a completion's retries: the task is handed back at once instead of after a minute", async () => {
    const stand = await workerAnswering([503]);
    const { logger, lines } = recordingLogger();
    const { loop, runs } = loopWithOneTask(stand, logger);
    loop.start();
    await expect
      .poll(() => lines.some((l) => l.msg === "completion not taken; sending it again"), { timeout: 5_000 })
      .toBe(true);
    const started = performance.now();
    await loop.drain(50);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(runs).toEqual(["lease-1"]);
    expect(stand.fails.map((f) => f.code)).toEqual(["node_shutdown"]);
  });

  it("uploads a render's output file again, whole, after an answer that said 'not now'", async () => {
    const received: Buffer[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push(Buffer.concat(chunks));
        if (received.length === 1) {
          res.writeHead(503, { "content-type": "text/plain" });
          res.end(PROXY_LOST);
          return;
        }
        res.setHeader("content-type", "application/json");
        const bytes = received.at(-1)?.length ?? 0;
        res.end(JSON.stringify({ object_key: "outputs/task-1/x", bytes, content_type: "video/mp4" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "token");
    const dir = await mkdtemp(join(tmpdir(), "voxedge-output-"));
    try {
      const file = join(dir, "short.mp4");
      const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) % 256));
      await writeFile(file, bytes);
      const receipt = await client.uploadOutput("lease-1", "short.mp4", file, "video/mp4");
      expect(receipt.bytes).toBe(bytes.length);
      expect(received).toHaveLength(2);
      expect(received[1]?.equals(bytes)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it("lists and uploads the catalog previews again after answers that said 'not now'", async () => {
    // A node starting while the Worker is redeployed (or behind wrangler dev's proxy) published none,
    // and the console showed no voice samples or thumbnails until the node started again.
    const calls: string[] = [];
    const received: Buffer[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        calls.push(`${req.method} ${req.url}`);
        const tries = calls.filter((c) => c === `${req.method} ${req.url}`).length;
        if (tries === 1) {
          res.writeHead(req.method === "GET" ? 502 : 503, { "content-type": "text/plain" });
          res.end(PROXY_LOST);
          return;
        }
        if (req.method === "PUT") received.push(Buffer.concat(chunks));
        res.setHeader("content-type", "application/json");
        res.end(req.method === "GET" ? JSON.stringify({ files: ["bg-aurora.png"] }) : "{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    const client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "token");
    expect(await client.storedPreviews()).toEqual(["bg-aurora.png"]);
    const dir = await mkdtemp(join(tmpdir(), "voxedge-preview-"));
    try {
      const file = join(dir, "voice-en-male.mp3");
      const bytes = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7) % 256));
      await writeFile(file, bytes);
      await client.uploadPreview("voice-en-male.mp3", file, "audio/mpeg");
      expect(received).toHaveLength(1);
      expect(received[0]?.equals(bytes)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(calls).toEqual([
      "GET /internal/v1/previews",
      "GET /internal/v1/previews",
      "PUT /internal/v1/previews/voice-en-male.mp3",
      "PUT /internal/v1/previews/voice-en-male.mp3",
    ]);
  });
});
