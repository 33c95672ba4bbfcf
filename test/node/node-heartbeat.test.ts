import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { WorkerClient } from "../../inference-node/worker-client.ts";
import { NodeHeartbeatRequest } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

/**
 * The node's one heartbeat: a real HTTP server stands for the Worker's `POST /internal/v1/heartbeat`,
 * answering each lease by the rule under test and recording every call as the Worker would parse it.
 */
async function workerAnswering(state: (leaseId: string) => "extended" | "cancel" | "gone", refusals = 0) {
  const calls: ReturnType<typeof NodeHeartbeatRequest.parse>[] = [];
  let refused = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      expect(req.url).toBe("/internal/v1/heartbeat");
      if (refused < refusals) {
        refused++;
        // what wrangler dev's ProxyWorker answers when it lost the call's connection to the Worker
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("Your worker restarted mid-request. Please try sending the request again.");
        return;
      }
      const parsed = NodeHeartbeatRequest.parse(JSON.parse(body));
      calls.push(parsed);
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          leases: parsed.leases.map((l) => ({
            lease_id: l.lease_id,
            state: state(l.lease_id),
            expires_at: 1,
          })),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const client = new WorkerClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "token");
  return { client, calls };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const listener = (progress: number, events: string[] = [], id = "") => ({
  report: () => ({ progress }),
  onCancel: () => events.push(`cancel ${id}`),
  onGone: () => events.push(`gone ${id}`),
});

describe("NodeHeartbeat", () => {
  it("sends one call per period carrying every lease the node holds, and none while it holds none", async () => {
    const { client, calls } = await workerAnswering(() => "extended");
    const heartbeat = new NodeHeartbeat(client, () => NODE_HEALTH, 40, pino({ level: "silent" }));
    const untrackA = heartbeat.track("lease-a", listener(10));
    const untrackB = heartbeat.track("lease-b", listener(55));
    await sleep(190);
    // Four or so periods: one call each, never one per lease.
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(5);
    for (const call of calls) {
      expect(call.node.node_id).toBe(NODE_HEALTH.node_id);
      expect(call.leases.map((l) => [l.lease_id, l.progress])).toEqual([
        ["lease-a", 10],
        ["lease-b", 55],
      ]);
    }
    untrackA();
    untrackB();
    const after = calls.length;
    await sleep(150);
    expect(calls.length).toBe(after);
  });

  it("tells each task its own answer: a cancel stops that task, a gone lease stops its task", async () => {
    const { client } = await workerAnswering((id) =>
      id === "lease-c" ? "cancel" : id === "lease-g" ? "gone" : "extended",
    );
    const heartbeat = new NodeHeartbeat(client, () => NODE_HEALTH, 30, pino({ level: "silent" }));
    const events: string[] = [];
    const untrack = [
      heartbeat.track("lease-c", listener(0, events, "c")),
      heartbeat.track("lease-g", listener(0, events, "g")),
      heartbeat.track("lease-ok", listener(0, events, "ok")),
    ];
    await sleep(80);
    for (const stop of untrack) stop();
    expect(new Set(events)).toEqual(new Set(["cancel c", "gone g"]));
  });

  it("splits a node holding more leases than one call may carry into several calls", async () => {
    const { client, calls } = await workerAnswering(() => "extended");
    const heartbeat = new NodeHeartbeat(client, () => NODE_HEALTH, 40, pino({ level: "silent" }));
    const untrack = Array.from({ length: 70 }, (_, i) => heartbeat.track(`lease-${i}`, listener(0)));
    await sleep(70);
    for (const stop of untrack) stop();
    expect(calls.slice(0, 2).map((c) => c.leases.length)).toEqual([64, 6]);
  });

  it("sends a beat the Worker could not take again within half a period, and warns only when that fails too", async () => {
    const warnings: string[] = [];
    const logger = pino(
      { level: "warn" },
      new Writable({
        write(line, _encoding, done) {
          warnings.push((JSON.parse(String(line)) as { msg: string }).msg);
          done();
        },
      }),
    );
    const events: string[] = [];
    const { client, calls } = await workerAnswering(() => "extended", 1);
    const heartbeat = new NodeHeartbeat(client, () => NODE_HEALTH, 1_000, logger);
    const untrack = heartbeat.track("lease-a", listener(5, events, "a"));
    // the first beat at 1 s is refused; its second try follows 125-250 ms later
    await expect.poll(() => calls.length, { timeout: 2_000, interval: 20 }).toBe(1);
    untrack();
    expect(warnings).toEqual([]);
    expect(events).toEqual([]);

    const down = await workerAnswering(() => "extended", 1_000);
    const beats = new NodeHeartbeat(down.client, () => NODE_HEALTH, 200, logger);
    const stop = beats.track("lease-b", listener(5));
    await expect.poll(() => warnings.length, { timeout: 2_000, interval: 20 }).toBeGreaterThan(0);
    stop();
    expect(warnings[0]).toBe("heartbeat failed");
  });
});
