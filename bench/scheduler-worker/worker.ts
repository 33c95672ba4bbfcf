/**
 * The scheduler bench's Worker (bench/scheduler.ts starts it with wrangler dev): it calls the real
 * Dispatcher's own methods over RPC, one call per operation as the platform's Worker does, and the
 * trivial reference object the same way.
 *
 *   POST /seed   {object, fleet}                              lays out a fleet in a fresh Dispatcher
 *   POST /run    {target, object, op, n, offset, fleet}       n operations, CONCURRENCY in flight; the storage counts
 *   POST /census {object}                                     waiting, leased, finished and parked
 *   POST /live/seed {object, fleet}                           connects a LiveHub shard's simulated nodes
 *   POST /live/run  {object, n, offset, fleet}                n streams assigned and released; the storage counts
 *   POST /live/report {object}                                every node reports its load (between runs)
 */
import type { Dispatcher } from "../../durable-objects/dispatcher/dispatcher.ts";
import { assignStream, releaseStream } from "../../durable-objects/live/live-streams.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import type { BenchBaseline } from "./baseline.ts";
import {
  BENCH_PARTITIONS,
  type Fleet,
  identity,
  JOB_HEARTBEATS,
  JOB_POLLS,
  LIVE_KEYS,
  type LiveRunBody,
  node,
  type RunBody,
  type RunFigures,
  type SchedulerOp,
} from "./bench-api.ts";
import type { BenchDispatcher } from "./bench-dispatcher.ts";
import type { BenchKeyStreams, BenchLiveHub } from "./bench-live-hub.ts";
import type { BenchPoolRoot } from "./bench-pool-root.ts";

export { JobState } from "../../durable-objects/job-state.ts";
export { LiveGate } from "../../durable-objects/live/live-gate.ts";
export { BenchBaseline } from "./baseline.ts";
export { BenchDispatcher } from "./bench-dispatcher.ts";
export { BenchKeyStreams, BenchLiveHub } from "./bench-live-hub.ts";
export { BenchPoolRoot } from "./bench-pool-root.ts";

/** Calls in flight at once: a busy object's load, not one caller's latency. */
const CONCURRENCY = 16;

interface BenchEnv extends Env {
  BENCH_DISPATCHER: DurableObjectNamespace<BenchDispatcher>;
  BENCH_BASELINE: DurableObjectNamespace<BenchBaseline>;
  BENCH_POOL_ROOT: DurableObjectNamespace<BenchPoolRoot>;
}

type Stub = DurableObjectStub<Dispatcher>;

const task = (id: string, i: number, keys: number) =>
  ({ task_id: id, owner: `key-${i % keys}`, lane: "batch", kind: "transcribe" }) as const;
const ask = (i: number, nodes: number): LeaseAsk => ({
  node: node(i % nodes),
  capacity: 1,
  wait_ms: 0,
  kinds: ["transcribe"],
});

/** Operation `i` of `op` on a Dispatcher holding `fleet`. */
async function operation(stub: Stub, op: SchedulerOp, i: number, fleet: Fleet): Promise<void> {
  const { waiting, keys, leases, nodes } = fleet;
  if (op === "enqueue") await stub.enqueue(task(`e-${i}`, i, keys));
  else if (op === "enqueue_dup") await stub.enqueue(task(`w-${i % waiting}`, i, keys));
  else if (op === "lease") await stub.lease(ask(i, nodes), identity(i % nodes));
  else if (op === "heartbeat") {
    // One node's heartbeat for all its leases (lease l-j is node j % nodes's).
    const who = i % nodes;
    const held = Array.from({ length: Math.ceil((leases - who) / nodes) }, (_, m) => `l-${who + m * nodes}`);
    await stub.heartbeatNode(held, node(who), identity(who));
  } else if (op === "complete") {
    const lease = await stub.lookup(`l-${i}`);
    if (lease) await stub.release(lease.lease_id, "finished");
  } else if (op === "stats") await stub.stats(`w-${i % waiting}`);
  else await job(stub, i, fleet);
}

/**
 * Partition 0's share of the deployment's jobs `from`.. when the jobs' keys are spread over
 * BENCH_PARTITIONS partitions: a whole job for every BENCH_PARTITIONS-th (its key's). A node parks only
 * at its home and steals elsewhere without parking (worker/tasks/lease-ask.ts), so a partition pays for
 * another's job only when that job crosses to a node of its: with no work waiting, `crossingRate` of the
 * jobs (1: every one, the most), partition 0 the crossing node's home for 1 in BENCH_PARTITIONS, its
 * node's wait at home ended by the job's partition forwarding it (`crossing`). With work waiting a home
 * grants its own nodes' asks and none crosses. The crossings run after the jobs: a crossing's node finds
 * no work of its home's (else it is granted at home, a job of its home's and no crossing), so none of
 * partition 0's jobs may reach its wait, as one would in a single batch (then handed back unused).
 */
async function partitionShare(stub: Stub, from: number, n: number, fleet: Fleet, crossingRate: number) {
  const nth = (i: number) => Math.floor(i / BENCH_PARTITIONS);
  // Spread evenly: deployment job i crosses when the running count of crossings steps up at it.
  const crosses = (i: number) => Math.floor((nth(i) + 1) * crossingRate) > Math.floor(nth(i) * crossingRate);
  await inFlight(from, n, async (i) => {
    if (i % BENCH_PARTITIONS === 0) await job(stub, i, fleet);
  });
  if (fleet.waiting > 0) return;
  await inFlight(from, n, async (i) => {
    if (i % BENCH_PARTITIONS === 1 && crosses(i)) await crossing(stub, i, fleet);
  });
}

/** What a crossing job costs its node's home: the node's wait there, sent to steal by a forward. */
async function crossing(stub: Stub, i: number, { nodes }: Fleet): Promise<void> {
  const who = i % nodes;
  // Short, so a forward that overtook its wait costs a second, not the run.
  const parked = stub.leaseOrSteal({ ...ask(who, nodes), wait_ms: 1000 }, identity(who), [], `wait-${i}`);
  await stub.forward(1);
  // The crossings run with no job of the home's in flight: a wait that got one measured no crossing.
  if ((await parked).leases.length > 0) throw new Error(`crossing ${i}: its wait was granted a job`);
}

/** A job's whole life: hand-off and its Queue duplicate, a grant, polls, heartbeats, the end. */
async function job(stub: Stub, i: number, { keys, nodes }: Fleet): Promise<void> {
  const mine = task(`j-${i}`, i, keys);
  await stub.enqueue(mine);
  await stub.enqueue(mine);
  const who = i % nodes;
  const [lease] = await stub.lease(ask(who, nodes), identity(who));
  for (let p = 0; p < JOB_POLLS; p++) await stub.stats(mine.task_id);
  if (!lease) return;
  for (let h = 0; h < JOB_HEARTBEATS; h++)
    await stub.heartbeatNode([lease.lease_id], node(who), identity(who));
  const held = await stub.lookup(lease.lease_id);
  if (held) await stub.release(held.lease_id, "finished");
}

/** Runs `count` calls of `call`, numbered from `from`, at most CONCURRENCY at once. */
async function inFlight(from: number, count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < from + count) await call(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, worker));
}

/** A namespace whose objects' names all start with `prefix`: each case gets hub shards and keys of its own. */
function scoped<T extends Rpc.DurableObjectBranded>(
  namespace: DurableObjectNamespace<T>,
  prefix: string,
): DurableObjectNamespace<T> {
  return {
    idFromName: (name: string) => namespace.idFromName(`${prefix}/${name}`),
    get: (id: DurableObjectId) => namespace.get(id),
  } as DurableObjectNamespace<T>;
}

/** Stream `i`'s whole stay on the live plane: assigned to an engine (counted against its key), then released. */
async function liveStream(env: Env, i: number): Promise<void> {
  const stream = { session_id: `s-${i}`, key_id: `key-${i % LIVE_KEYS}` };
  const got = await assignStream(env, { ...stream, host: { object: "session" }, mode: "stream" });
  if (!got.ok) throw new Error(`live bench: stream ${i} got no engine: ${got.message}`);
  await releaseStream(env, { ...stream, mic: false });
}

/** The /live routes: a LiveHub shard (LIVE_HUB_SHARDS = 1 here) and its streams' keys, scoped to the case. */
async function live(pathname: string, body: LiveRunBody, env: BenchEnv): Promise<Response> {
  const caseEnv = {
    ...env,
    LIVE_HUB: scoped(env.LIVE_HUB, body.object),
    LIVE_KEY_STREAMS: scoped(env.LIVE_KEY_STREAMS, body.object),
  };
  // the bench's classes behind the platform's bindings (bench/scheduler-worker/wrangler.toml)
  const hubs = caseEnv.LIVE_HUB as unknown as DurableObjectNamespace<BenchLiveHub>;
  const keys = caseEnv.LIVE_KEY_STREAMS as unknown as DurableObjectNamespace<BenchKeyStreams>;
  const hub = hubs.get(hubs.idFromName("shard-0"));
  if (pathname === "/live/seed") {
    await hub.seed(body.fleet);
    return Response.json({ ok: true });
  }
  if (pathname === "/live/report") {
    await hub.report();
    await hub.takeCounts(); // node traffic, not the streams' cost
    return Response.json({ ok: true });
  }
  await inFlight(body.offset, body.n, (i) => liveStream(caseEnv, i));
  const counts = await Promise.all([
    hub.takeCounts(),
    ...Array.from({ length: LIVE_KEYS }, (_, k) => keys.get(keys.idFromName(`key-${k}`)).takeCounts()),
  ]);
  const sum = (key: "statements" | "rowsRead" | "rowsWritten") => counts.reduce((t, c) => t + c[key], 0);
  return Response.json({
    ops: body.n,
    statements: sum("statements"),
    rowsRead: sum("rowsRead"),
    rowsWritten: sum("rowsWritten"),
  } satisfies RunFigures);
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST") return new Response("scheduler bench worker");
    if (pathname.startsWith("/live/")) return live(pathname, (await request.json()) as LiveRunBody, env);
    const body = (await request.json()) as RunBody;
    const dispatcher = env.BENCH_DISPATCHER.get(env.BENCH_DISPATCHER.idFromName(body.object));
    if (pathname === "/seed") {
      // seed() restarts the object, so its call ends in an error; a new stub reaches the new instance.
      await dispatcher.seed(body.fleet).catch(() => undefined);
      const restarted = env.BENCH_DISPATCHER.get(env.BENCH_DISPATCHER.idFromName(body.object));
      await restarted.park(body.fleet);
      return Response.json({ ok: true });
    }
    if (pathname === "/census") return Response.json(await dispatcher.census());
    if (pathname !== "/run") return new Response("unknown bench route", { status: 404 });
    if (body.target === "baseline") {
      const baseline = env.BENCH_BASELINE.get(env.BENCH_BASELINE.idFromName(body.object));
      await inFlight(body.offset, body.n, (i) => baseline.write(i));
      return Response.json({ ops: body.n, ...(await baseline.takeCounts()) } satisfies RunFigures);
    }
    if (body.op === "root_job") {
      // Job i's partition takes a slot of the cap before its grant and hands it back as the lease ends.
      const root = env.BENCH_POOL_ROOT.get(env.BENCH_POOL_ROOT.idFromName(body.object));
      await inFlight(body.offset, body.n, async (i) => {
        await root.acquire(i % BENCH_PARTITIONS, 1);
        await root.release(i % BENCH_PARTITIONS, 1);
      });
      return Response.json({ ops: body.n, ...(await root.takeCounts()) } satisfies RunFigures);
    }
    const stub = dispatcher as unknown as Stub;
    if (body.op === "job_partition")
      await partitionShare(stub, body.offset, body.n, body.fleet, body.crossingRate ?? 1);
    else await inFlight(body.offset, body.n, (i) => operation(stub, body.op, i, body.fleet));
    return Response.json({ ops: body.n, ...(await dispatcher.takeCounts()) } satisfies RunFigures);
  },
} satisfies ExportedHandler<BenchEnv>;
