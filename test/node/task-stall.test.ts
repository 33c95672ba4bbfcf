import { readdirSync, readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../inference-node/config.ts";
import { runTool } from "../../inference-node/content/process.ts";
import { LeaseLoop, type TaskRunner } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { fetchMedia } from "../../inference-node/pipeline/fetch-media.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import { type CompleteRequest, FailRequest } from "../../protocol/node.ts";
import { parseAllowlist } from "../../protocol/url-policy.ts";
import { leasesOneAtATime } from "../helpers/lease-stand-in.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

// A task whose work hangs (a decode, an ffmpeg or espeak-ng child that never ends) kept its slot and
// its `processing` status forever: the node's heartbeat extends its lease for as long as the node
// lives. The node's stall bound stops such a task and fails it as `task_stalled`.

const completion = { kind: "transcribe" } as unknown as CompleteRequest;

/**
 * A WorkerClient stand-in handing out `count` leases one ask at a time; it checks each failure report
 * against the protocol's schema and records asks, completions and failures in order.
 */
function workerStandIn(count: number) {
  const events: string[] = [];
  const failures: FailRequest[] = [];
  const client = {
    lease: leasesOneAtATime(count, "transcribe", events),
    heartbeatNode: async (body: { leases: { lease_id: string }[] }) =>
      body.leases.map((l) => ({ lease_id: l.lease_id, state: "extended", expires_at: Date.now() + 60_000 })),
    complete: async (leaseId: string) => {
      events.push(`complete ${leaseId}`);
    },
    partial: async () => undefined,
    fail: async (leaseId: string, failure: unknown) => {
      failures.push(FailRequest.parse(failure));
      events.push(`fail ${leaseId}`);
    },
  };
  return { client: client as unknown as WorkerClient, events, failures };
}

function loopWith(
  client: WorkerClient,
  run: TaskRunner,
  options: { stallMs: number; stallGraceMs?: number; concurrency?: number; onSlotsExhausted?: () => void },
) {
  const logger = pino({ level: "silent" });
  return new LeaseLoop({
    client,
    health: () => NODE_HEALTH,
    run,
    kinds: ["transcribe"],
    concurrency: 1,
    heartbeat: new NodeHeartbeat(client, () => NODE_HEALTH, 50, logger),
    logger,
    pollWaitMs: 50,
    ...options,
  });
}

/** Whether a process whose command line contains `marker` is running (Linux's /proc). */
function running(marker: string): boolean {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false; // it ended while the list was read
      }
    });
}

// a server that sends a media file a few bytes at a time, for `dripMs` in all
const held = new Set<ServerResponse>();
const media = createServer((req, res) => {
  held.add(res);
  res.on("close", () => held.delete(res));
  res.writeHead(200, { "content-type": "audio/mpeg" });
  const drip = setInterval(() => res.write(Buffer.alloc(16, 0xff)), 40);
  setTimeout(
    () => {
      clearInterval(drip);
      res.end();
    },
    Number(new URL(req.url ?? "/", "http://x").searchParams.get("ms")),
  );
});
let origin = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => media.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => media.close(resolve));
});

describe("a task that stops making progress", () => {
  it("is stopped, its hung child process killed, and failed as task_stalled; its slot takes the next task", async () => {
    const marker = `hung-child-${Math.random()}`;
    const { client, events, failures } = workerStandIn(2);
    const loop = loopWith(
      client,
      async (lease, context) => {
        context.progress(10, { step: "decoding" });
        if (lease.lease_id === "lease-2") return completion;
        // a real child that never ends, run the way content tasks run ffmpeg and espeak-ng
        await runTool(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], {
          signal: context.signal,
          missingCode: "renderer_unavailable",
          failedCode: "render_failed",
        });
        return completion;
      },
      { stallMs: 300 },
    );
    loop.start();
    await expect.poll(() => running(marker), { timeout: 2_000 }).toBe(true);
    await expect.poll(() => events.includes("complete lease-2"), { timeout: 3_000 }).toBe(true);
    expect(events.filter((e) => !e.startsWith("ask"))).toEqual(["fail lease-1", "complete lease-2"]);
    expect(failures).toEqual([
      {
        code: "task_stalled",
        message: expect.stringMatching(/no progress for 0\.3 s .*at 10 %, decoding/),
      },
    ]);
    expect(running(marker)).toBe(false);
    await loop.drain(100);
  });

  it("is not stopped while it reports progress, sends partial results or receives its media", async () => {
    const { client, events, failures } = workerStandIn(1);
    const loop = loopWith(
      client,
      async (lease, context) => {
        // 1.2 s of work in all, never 300 ms without a sign of life
        for (let i = 0; i < 4; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          context.progress(5); // the same percentage again still says the task is working
          await new Promise((resolve) => setTimeout(resolve, 100));
          context.partial([{ start: i, end: i + 1, text: "words" }]);
        }
        // a download whose bytes trickle in for 0.4 s, each chunk a sign of life
        const file = await fetchMedia(
          {
            lease_id: lease.lease_id,
            source: { type: "url", url: `${origin}/media.mp3?ms=400` },
            source_path: null,
          },
          {
            client,
            maxBytes: 1024 ** 2,
            allowlist: parseAllowlist(new URL(origin).host),
            tempDir: tmpdir(),
            signal: context.signal,
            downloadMaxMs: 10_000,
            onData: context.alive,
          },
        );
        await file.remove();
        return completion;
      },
      { stallMs: 300 },
    );
    loop.start();
    await expect.poll(() => events.includes("complete lease-1"), { timeout: 5_000 }).toBe(true);
    expect(failures).toEqual([]);
    await loop.drain(100);
  });

  it("that ignores its stop is failed after the grace, and its slot stays retired until the work returns", async () => {
    const { client, events, failures } = workerStandIn(2);
    let finishHung = () => {};
    const loop = loopWith(
      client,
      async (lease) => {
        if (lease.lease_id === "lease-2") return completion;
        // work that does not listen to its signal, as a native call stuck in a loop would not
        await new Promise<void>((resolve) => {
          finishHung = resolve;
        });
        return completion;
      },
      { stallMs: 200, stallGraceMs: 200 },
    );
    loop.start();
    await expect.poll(() => events.includes("fail lease-1"), { timeout: 2_000 }).toBe(true);
    expect(failures[0]).toMatchObject({
      code: "task_stalled",
      message: expect.stringMatching(/did not stop/),
    });
    const asksAtFailure = events.filter((e) => e.startsWith("ask")).length;
    // the hung work still holds its thread: the node takes no other task in its place
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(events.filter((e) => e.startsWith("ask")).length).toBe(asksAtFailure);
    expect(loop.activeTasks).toBe(1);
    finishHung();
    // once it returns the slot is free again; its late result is not reported
    await expect.poll(() => events.includes("complete lease-2"), { timeout: 3_000 }).toBe(true);
    expect(events).not.toContain("complete lease-1");
    expect(loop.activeTasks).toBe(0);
    await loop.drain(100);
  });

  it("says so once every slot is held by work that ignored its stop, and not before", async () => {
    const { client, events } = workerStandIn(3);
    const hung = new Set<string>();
    let exhausted = 0;
    const loop = loopWith(
      client,
      async (lease) => {
        if (lease.lease_id === "lease-3") return completion;
        // work that does not listen to its signal, as a native call stuck in a loop would not
        hung.add(lease.lease_id);
        return new Promise<CompleteRequest>(() => {});
      },
      { stallMs: 200, stallGraceMs: 200, concurrency: 2, onSlotsExhausted: () => exhausted++ },
    );
    loop.start();
    await expect.poll(() => events.includes("fail lease-2"), { timeout: 3_000 }).toBe(true);
    // both slots are retired now: the node can take no task of this class until it restarts
    await expect.poll(() => exhausted, { timeout: 1_000 }).toBe(1);
    expect(hung).toEqual(new Set(["lease-1", "lease-2"]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(exhausted).toBe(1);
    await loop.drain(100);
  });

  it("does not say so while one slot is still free", async () => {
    const { client, events } = workerStandIn(3);
    let exhausted = 0;
    const loop = loopWith(
      client,
      async (lease) => (lease.lease_id === "lease-1" ? new Promise<CompleteRequest>(() => {}) : completion),
      { stallMs: 200, stallGraceMs: 200, concurrency: 2, onSlotsExhausted: () => exhausted++ },
    );
    loop.start();
    await expect.poll(() => events.includes("fail lease-1"), { timeout: 3_000 }).toBe(true);
    await expect.poll(() => events.includes("complete lease-3"), { timeout: 3_000 }).toBe(true);
    expect(exhausted).toBe(0);
    await loop.drain(100);
  });

  it("does not keep a drain waiting on work that ignores its stop", async () => {
    const { client, events } = workerStandIn(1);
    const loop = loopWith(client, () => new Promise<CompleteRequest>(() => {}), {
      stallMs: 200,
      stallGraceMs: 200,
    });
    loop.start();
    await expect.poll(() => events.includes("fail lease-1"), { timeout: 2_000 }).toBe(true);
    const started = Date.now();
    await loop.drain(5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("VOXEDGE_TASK_STALL_SEC", () => {
  const base = { NODE_TOKEN: "node-token-123" };

  it("defaults to 900 s and is refused at 0", () => {
    expect(loadConfig([], base).taskStallSec).toBe(900);
    expect(loadConfig([], { ...base, VOXEDGE_TASK_STALL_SEC: "60" }).taskStallSec).toBe(60);
    expect(() => loadConfig([], { ...base, VOXEDGE_TASK_STALL_SEC: "0" })).toThrow(
      /inference node configuration: taskStallSec/,
    );
  });
});
