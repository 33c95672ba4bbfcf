import { randomBytes } from "node:crypto";
/**
 * Group `api`: poll and history latency and throughput on the local stack (wrangler dev), each as a
 * ratio against a trivial JSON route measured in the same run (local wrangler dev is not capacity:
 * its proxy and local D1 dominate), the enqueue→lease hand-off latency and an upload's enqueue alone.
 */
import autocannon from "autocannon";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { median, percentile } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const CONNECTIONS = 8;
const DURATION_SEC = 5;
const ROUNDS = 2;
const SEED_TASKS = 30; // with the hand-off samples, under the 60/min per-key enqueue limit
const HANDOFF_SAMPLES = 20;

interface LoadFigures {
  p50: number;
  p99: number;
  rps: number;
}

async function load(url: string, headers: Record<string, string>): Promise<LoadFigures> {
  const out = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_SEC, headers });
  if (out.non2xx > 0 || out.errors > 0)
    throw new Error(`${url}: ${out.non2xx} non-2xx, ${out.errors} errors`);
  return { p50: out.latency.p50, p99: out.latency.p99, rps: out.requests.average };
}

/** Enqueues one small upload and returns its task id. */
async function enqueue(base: string, key: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([randomBytes(2048)], { type: "audio/wav" }), "clip.wav");
  const response = await fetch(`${base}/transcribe/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  if (response.status !== 200) throw new Error(`enqueue: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { task_id: string }).task_id;
}

/** Long-polls one lease as a node would; returns the leased task id and lease id. */
async function leaseOne(base: string, token: string): Promise<{ task_id: string; lease_id: string }> {
  const response = await fetch(`${base}/internal/v1/lease`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      node: { node_id: "bench-node", asr_loaded: true, models_ready: ["whisper-base"] },
      capacity: 1,
      wait_ms: 20_000,
    }),
  });
  const { leases } = (await response.json()) as { leases: { task_id: string; lease_id: string }[] };
  const lease = leases[0];
  if (!lease) throw new Error("no lease within 20 s");
  return lease;
}

async function failLease(base: string, token: string, leaseId: string): Promise<void> {
  await fetch(`${base}/internal/v1/leases/${leaseId}/fail`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ code: "invalid_params", message: "bench: not decoded" }),
  });
}

/** Time from sending an enqueue request to a long-polling node holding the lease. */
async function handOffLatencies(base: string, key: string, token: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < HANDOFF_SAMPLES; i++) {
    const leased = leaseOne(base, token).then((lease) => ({ lease, at: performance.now() }));
    await new Promise((r) => setTimeout(r, 50)); // the node is waiting before work arrives
    const sent = performance.now();
    const taskId = await enqueue(base, key);
    const { lease, at } = await leased;
    if (lease.task_id !== taskId) throw new Error("hand-off: leased another task");
    samples.push(at - sent);
    await failLease(base, token, lease.lease_id);
  }
  return samples;
}

export const api: BenchGroup = async () => {
  const worker = await LocalPlatform.start();
  const { key, token } = worker;
  // A second, separate platform whose key cache is off: its /v1/models costs exactly one D1 read.
  const uncached = await LocalPlatform.start({ vars: { AUTH_CACHE_TTL_SEC: "0" } }).catch(async (error) => {
    await worker.stop();
    throw error;
  });
  const uncachedKey = uncached.key;
  try {
    const base = worker.url;
    const auth = { authorization: `Bearer ${key}` };
    const handoff = await handOffLatencies(base, key, token);
    let taskId = "";
    const enqueueMs: number[] = [];
    for (let i = 0; i < SEED_TASKS; i++) {
      const sent = performance.now();
      taskId = await enqueue(base, key);
      enqueueMs.push(performance.now() - sent);
    }

    const targets = {
      trivial: { url: `${base}/`, headers: auth },
      poll: { url: `${base}/transcribe/${taskId}`, headers: auth },
      history: { url: `${base}/history?limit=20`, headers: auth },
      auth_cached: { url: `${base}/v1/models`, headers: auth },
      // The same route on the stack whose key cache is off: one D1 read per request, the local floor.
      auth_uncached: {
        url: `${uncached.url}/v1/models`,
        headers: { authorization: `Bearer ${uncachedKey}` },
      },
    };
    const runs: Record<keyof typeof targets, LoadFigures[]> = {
      trivial: [],
      poll: [],
      history: [],
      auth_cached: [],
      auth_uncached: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
        runs[name].push(await load(targets[name].url, targets[name].headers));
      }
    }
    const pick = (name: keyof typeof targets, field: keyof LoadFigures) =>
      median(runs[name].map((r) => r[field]));
    const note = `${CONNECTIONS} connections, ${DURATION_SEC}s x ${ROUNDS} interleaved rounds, median; reference = GET / (trivial JSON)`;
    const figures: BenchResult[] = [];
    for (const name of ["poll", "history"] as const) {
      figures.push(result(`api.${name}.p50_ms`, pick(name, "p50"), pick("trivial", "p50"), "ms", note));
      figures.push(result(`api.${name}.p99_ms`, pick(name, "p99"), pick("trivial", "p99"), "ms", note));
      figures.push(result(`api.${name}.rps`, pick(name, "rps"), pick("trivial", "rps"), "req/s", note));
    }
    const authNote = `${note}; GET /v1/models needs only the key`;
    figures.push(
      result("api.auth_cached.p50_ms", pick("auth_cached", "p50"), pick("trivial", "p50"), "ms", authNote),
    );
    figures.push(
      result(
        "api.auth_uncached.p50_ms",
        pick("auth_uncached", "p50"),
        pick("trivial", "p50"),
        "ms",
        `${authNote}, on a Worker with AUTH_CACHE_TTL_SEC=0: one D1 read per request`,
      ),
    );
    figures.push(
      result(
        "api.history_vs_one_d1_read.p50",
        pick("history", "p50"),
        pick("auth_uncached", "p50"),
        "ms",
        "history (one D1 statement per page) against a route whose only work is one D1 read",
      ),
    );
    const handoffNote = `${HANDOFF_SAMPLES} sequential uploads to a long-polling node; includes the enqueue request; reference = trivial p50`;
    figures.push(
      result("api.handoff.p50_ms", percentile(handoff, 50), pick("trivial", "p50"), "ms", handoffNote),
    );
    figures.push(
      result("api.handoff.p99_ms", percentile(handoff, 99), pick("trivial", "p99"), "ms", handoffNote),
    );
    figures.push(
      result(
        "api.enqueue.p50_ms",
        percentile(enqueueMs, 50),
        pick("trivial", "p50"),
        "ms",
        `${SEED_TASKS} sequential 2 KB uploads (POST /transcribe/upload, no node waiting); reference = trivial p50`,
      ),
    );
    return figures;
  } finally {
    await uncached.stop();
    await worker.stop();
  }
};
