/**
 * Group `scheduler`: what each scheduler operation costs the object that runs it, as the fleet grows.
 *
 * A bench-only Worker (bench/scheduler-worker/) runs the real Dispatcher with its SQL storage counted,
 * under wrangler dev. For each operation (enqueue, duplicate enqueue, lease grant, heartbeat,
 * complete, the queue figures of a poll, and a job's whole life) and each fleet (nodes, waiting tasks,
 * keys, running leases, parked long-polls), a batch of calls runs inside the object, and a trivial
 * object doing one storage write per call runs the same way, interleaved: ours and the reference are
 * measured in the same run, alternating, and the median of the rounds is kept. Figures per call:
 * workerd's CPU time (from /proc; wall time where /proc is missing) and the storage statements and
 * rows. Locally every object shares one workerd process, so these are per-object costs, not a
 * fleet's throughput; on Cloudflare each object has its own thread.
 *
 * The live cases do the same for the LiveHub: a stream assigned to an engine and released, through
 * the platform's own calls (live-streams.ts: the shard's load, the key's count, the assignment, the
 * release), against one shard holding every simulated node and the streams they run.
 */
import type { ChildProcess } from "node:child_process";
import { freePort } from "../scripts/lib/ports.ts";
import { startWranglerDev } from "../scripts/lib/wrangler.ts";
import { tempState } from "../test/helpers/local-platform.ts";
import { benchFleet, simulateCrossings } from "./crossing-sim.ts";
import { cpuMs, descendants } from "./proc.ts";
import {
  BENCH_PARTITIONS,
  type Fleet,
  JOB_HEARTBEATS,
  JOB_POLLS,
  type LiveFleet,
  type LiveRunBody,
  ROOT_CALLS_PER_JOB,
  type RunBody,
  type RunFigures,
  type SchedulerOp,
} from "./scheduler-worker/bench-api.ts";
import { median } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const ROUNDS = 3;
/** Object time one batch aims at: long against /proc's 10 ms ticks, short against the run's length. */
const BATCH_TARGET_MS = 250;
const UNCAPPED = 1_000_000;
/** The calls one job makes of the Dispatcher: two hand-offs, a grant, the polls, the heartbeats, lookup and release. */
const JOB_CALLS = 2 + 1 + JOB_POLLS + JOB_HEARTBEATS + 2;

interface Case {
  op: SchedulerOp;
  label: string;
  fleet: Fleet;
  /** `job_partition` with no work waiting: the fraction of jobs that cross (1 when absent: every one). */
  crossingRate?: number;
}

const fleet = (f: Partial<Fleet>): Fleet => ({
  waiting: 0,
  keys: 1,
  leases: 0,
  nodes: 10,
  parked: 0,
  cap: UNCAPPED,
  ...f,
});
const LARGE = { waiting: 20_000, keys: 2_000, nodes: 2_000 };

/**
 * The small fleet's load for its partition share at a real crossing rate: 0.9 of its slots, a fleet run
 * near its capacity (object time per job matters when jobs are many) and short of saturation (at 0.95
 * and above the line grows and a freed node finds work at home more often; crossing-sim.ts).
 */
const CROSSING_LOAD = 0.9;
/**
 * The small fleet's crossing rate at CROSSING_LOAD: deterministic (a fixed seed), about 1 s to compute,
 * so computed when this group runs, not when bench/run.ts imports every group.
 */
const smallFleetCrossing = (): number =>
  simulateCrossings(benchFleet(10, 10, BENCH_PARTITIONS), { load: CROSSING_LOAD, jobs: 200_000, seed: 1 })
    .crossingFraction;

/** One dimension at a time, from a small fleet to the 2 000 nodes, 20 000 waiting, 2 000 keys. */
const schedulerCases = (crossing: number): Case[] => [
  { op: "enqueue", label: "empty", fleet: fleet({}) },
  { op: "enqueue", label: "w20000_k2000", fleet: fleet({ ...LARGE }) },
  {
    op: "enqueue",
    label: "parked100_full",
    fleet: fleet({ nodes: 100, parked: 100, leases: 100, cap: 100 }),
  },
  {
    op: "enqueue",
    label: "parked1000_full",
    fleet: fleet({ nodes: 1_000, parked: 1_000, leases: 1_000, cap: 1_000 }),
  },
  { op: "enqueue_dup", label: "w20000_k2000", fleet: fleet({ ...LARGE }) },
  { op: "lease", label: "w20000_k10_n10", fleet: fleet({ waiting: 20_000, keys: 10, nodes: 10 }) },
  { op: "lease", label: "w20000_k2000_n2000", fleet: fleet({ ...LARGE }) },
  { op: "lease", label: "w20000_k2000_n2000_l10000", fleet: fleet({ ...LARGE, leases: 10_000 }) },
  // A node's one heartbeat carries all its leases: 10 a call here, 5 in the large fleet.
  { op: "heartbeat", label: "l100_n10_10each", fleet: fleet({ leases: 100 }) },
  {
    op: "heartbeat",
    label: "l10000_n2000_5each",
    fleet: fleet({ leases: 10_000, nodes: 2_000, keys: 2_000 }),
  },
  { op: "complete", label: "l1000", fleet: fleet({ leases: 1_000, nodes: 100, keys: 100 }) },
  // Each release tries a grant for every parked long-poll, each counting the leases: at 10 000 leases
  // and 1 000 parked, one release takes seconds and workerd restarts the object mid-batch.
  {
    op: "complete",
    label: "l2000_parked200",
    fleet: fleet({ leases: 2_000, nodes: 200, keys: 200, parked: 200, cap: 2_000 }),
  },
  { op: "stats", label: "w1000_k10", fleet: fleet({ waiting: 1_000, keys: 10 }) },
  { op: "stats", label: "w20000_k2000_l10000", fleet: fleet({ ...LARGE, leases: 10_000 }) },
  { op: "job", label: "n10_k10", fleet: fleet({ keys: 10 }) },
  { op: "job", label: "n2000_w20000_k2000_l1000", fleet: fleet({ ...LARGE, leases: 1_000 }) },
  // The same two fleets, one of BENCH_PARTITIONS partitions: its object-time per deployment job. The
  // small fleet (no work waiting) with every job crossing, the most, and at its simulated crossing rate.
  { op: "job_partition", label: "n10_k10", fleet: fleet({ keys: 10 }) },
  {
    op: "job_partition",
    label: `n10_k10_crossing${crossing.toFixed(3)}_at_load${CROSSING_LOAD}`,
    fleet: fleet({ keys: 10 }),
    crossingRate: crossing,
  },
  { op: "job_partition", label: "n2000_w20000_k2000_l1000", fleet: fleet({ ...LARGE, leases: 1_000 }) },
  // The pool root's share of a job with a numeric cap (MAX_CONCURRENT_TRANSCRIBE_JOBS = 2 here) over
  // BENCH_PARTITIONS partitions, beside ROOT_CALLS_PER_JOB trivial writes.
  { op: "root_job", label: "p4_cap2", fleet: fleet({}) },
];

interface LiveCase {
  label: string;
  fleet: LiveFleet;
}

/** Nodes from 10 to 1 000, the streams they run from none to 10 000: one shard holds them all. */
const LIVE_CASES: LiveCase[] = [
  { label: "n10_s0", fleet: { nodes: 10, streams: 0, spare: 4 } },
  { label: "n100_s1000", fleet: { nodes: 100, streams: 1_000, spare: 4 } },
  { label: "n1000_s1000", fleet: { nodes: 1_000, streams: 1_000, spare: 4 } },
  { label: "n1000_s10000", fleet: { nodes: 1_000, streams: 10_000, spare: 4 } },
];

/** How many calls a case may consume from its seeded fleet, in all its rounds. */
function budget(c: Case): number {
  if (c.op === "lease") return c.fleet.waiting;
  if (c.op === "complete") return c.fleet.leases;
  return Number.POSITIVE_INFINITY;
}

interface Batch {
  ms: number;
  figures: RunFigures;
}

class BenchWorker {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    /** wrangler dev's workerd processes: its entry proxy and the runtime of the Worker and its objects. */
    private readonly workerd: number[],
  ) {}

  static async start(stateDir: string, verbose: boolean): Promise<BenchWorker> {
    const port = await freePort();
    const child = startWranglerDev(port, {
      config: "bench/scheduler-worker/wrangler.toml",
      persistTo: stateDir,
      quiet: !verbose,
    });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 240; i++) {
      if (child.exitCode !== null)
        throw new Error("the scheduler bench's wrangler dev exited during start-up");
      try {
        if ((await fetch(url)).ok) {
          const workerd = child.pid ? descendants(child.pid, /workerd/) : [];
          return new BenchWorker(url, child, workerd);
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    child.kill("SIGTERM");
    throw new Error("the scheduler bench's wrangler dev did not answer within a minute");
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** A batch's time: workerd's CPU (user + system) when /proc has it, else the wall clock. */
  async timed(path: string, body: unknown): Promise<Batch> {
    const cpu0 = this.cpuMs();
    const wall0 = performance.now();
    const figures = await this.post<RunFigures>(path, body);
    const wall = performance.now() - wall0;
    const cpu = this.cpuMs() - cpu0;
    return { ms: Number.isNaN(cpu) ? wall : cpu, figures };
  }

  get measuresCpu(): boolean {
    return !Number.isNaN(this.cpuMs());
  }

  private cpuMs(): number {
    return cpuMs(this.workerd);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGTERM");
    await exited;
  }
}

interface CaseFigures {
  msPerOp: number;
  refMsPerOp: number;
  ours: RunFigures;
  reference: RunFigures;
}

/** RPCs one /run request makes (a request's subrequests are capped at 1 000). */
const RUN_CHUNK = 400;

/** `n` operations as /run requests of at most RUN_CHUNK calls; their time and storage counts summed. */
async function batch(
  worker: BenchWorker,
  body: Omit<RunBody, "n" | "offset">,
  offset: number,
  n: number,
): Promise<Batch> {
  const total: Batch = { ms: 0, figures: { ops: 0, statements: 0, rowsRead: 0, rowsWritten: 0 } };
  for (let done = 0; done < n; done += RUN_CHUNK) {
    const part = await worker.timed("/run", {
      ...body,
      n: Math.min(RUN_CHUNK, n - done),
      offset: offset + done,
    });
    total.ms += part.ms;
    for (const key of ["ops", "statements", "rowsRead", "rowsWritten"] as const)
      total.figures[key] += part.figures[key];
  }
  return total;
}

/** RPCs one live stream makes (a shard's load, reserve, assign, two releases): a /live/run stays under 1 000. */
const LIVE_CHUNK = 150;

/** `n` live streams as /live/run requests of at most LIVE_CHUNK; their time and storage counts summed. */
async function liveBatch(worker: BenchWorker, object: string, fleet: LiveFleet, offset: number, n: number) {
  const total: Batch = { ms: 0, figures: { ops: 0, statements: 0, rowsRead: 0, rowsWritten: 0 } };
  for (let done = 0; done < n; done += LIVE_CHUNK) {
    const body: LiveRunBody = { object, fleet, n: Math.min(LIVE_CHUNK, n - done), offset: offset + done };
    const part = await worker.timed("/live/run", body);
    // the nodes' load reports, as they come between assignments on a live deployment (not timed)
    await worker.post("/live/report", body);
    total.ms += part.ms;
    for (const key of ["ops", "statements", "rowsRead", "rowsWritten"] as const)
      total.figures[key] += part.figures[key];
  }
  return total;
}

/** A batch size whose batch takes about BATCH_TARGET_MS, within `limit` calls. */
async function sized(run: (n: number) => Promise<Batch>, limit: number): Promise<number> {
  let n = 4;
  for (;;) {
    const { ms } = await run(n);
    if (ms >= BATCH_TARGET_MS / 4 || n * 2 > limit)
      return Math.max(1, Math.min(limit, Math.round((n * BATCH_TARGET_MS) / Math.max(ms, 1))));
    n *= 2;
  }
}

async function measure(worker: BenchWorker, c: Case, index: number): Promise<CaseFigures> {
  const object = `case-${index}-${c.op}-${c.label}`;
  await worker.post("/seed", { object, fleet: c.fleet });
  let offset = 0;
  let used = 0;
  const ours = async (n: number) => {
    const body = {
      target: "dispatcher",
      object,
      op: c.op,
      fleet: c.fleet,
      crossingRate: c.crossingRate,
    } as const;
    const out = await batch(worker, body, offset, n);
    offset += n;
    used += n;
    return out;
  };
  const reference = (n: number) =>
    batch(worker, { target: "baseline", object, op: c.op, fleet: c.fleet }, 0, n);
  // Warm-up, discarded: it sizes each side's batches, ours within what the seeded fleet can give.
  const n = await sized(ours, Math.max(1, Math.floor((budget(c) - 64) / (ROUNDS + 1))));
  const refN = await sized(reference, 20_000);
  const oursMs: number[] = [];
  const refMs: number[] = [];
  let lastOurs: RunFigures | null = null;
  let lastRef: RunFigures | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so a drift in the machine's speed falls on both sides alike.
    let a: Batch;
    let b: Batch;
    if (round % 2 === 0) {
      a = await ours(n);
      b = await reference(refN);
    } else {
      b = await reference(refN);
      a = await ours(n);
    }
    oursMs.push(a.ms / n);
    refMs.push(b.ms / refN);
    lastOurs = a.figures;
    lastRef = b.figures;
  }
  await checkCensus(worker, object, c, used);
  return { msPerOp: median(oursMs), refMsPerOp: median(refMs), ours: lastOurs!, reference: lastRef! };
}

/** A live case: assign + release against the trivial write, alternating, the median of the rounds. */
async function measureLive(worker: BenchWorker, c: LiveCase, index: number): Promise<CaseFigures> {
  const object = `live-${index}-${c.label}`;
  await worker.post("/live/seed", { object, fleet: c.fleet, n: 0, offset: 0 } satisfies LiveRunBody);
  let offset = 0;
  const ours = async (n: number) => {
    const out = await liveBatch(worker, object, c.fleet, offset, n);
    offset += n;
    return out;
  };
  const reference = (n: number) =>
    batch(worker, { target: "baseline", object, op: "enqueue", fleet: fleet({}) }, 0, n);
  const n = await sized(ours, 20_000);
  const refN = await sized(reference, 20_000);
  const oursMs: number[] = [];
  const refMs: number[] = [];
  let lastOurs: RunFigures | null = null;
  let lastRef: RunFigures | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    const [a, b] =
      round % 2 === 0
        ? [await ours(n), await reference(refN)]
        : await reference(refN).then(async (r) => [await ours(n), r] as const);
    oursMs.push(a.ms / n);
    refMs.push(b.ms / refN);
    lastOurs = a.figures;
    lastRef = b.figures;
  }
  return { msPerOp: median(oursMs), refMsPerOp: median(refMs), ours: lastOurs!, reference: lastRef! };
}

/** Nothing lost or doubled: every task the case made or seeded is waiting, leased or finished. */
async function checkCensus(worker: BenchWorker, object: string, c: Case, calls: number): Promise<void> {
  const census = await worker.post<{ waiting: number; leased: number; finished: number }>("/census", {
    object,
  });
  const seeded = c.fleet.waiting + c.fleet.leases;
  const made =
    c.op === "enqueue" || c.op === "job"
      ? calls
      : c.op === "job_partition"
        ? Math.ceil(calls / BENCH_PARTITIONS)
        : 0;
  const total = census.waiting + census.leased + census.finished;
  if (total !== seeded + made)
    throw new Error(
      `scheduler bench ${c.op}.${c.label}: ${total} tasks accounted for, expected ${seeded + made}`,
    );
}

const perCall = (f: RunFigures, key: "statements" | "rowsRead" | "rowsWritten") =>
  f[key] / Math.max(f.ops, 1);

const only = () => process.argv.find((arg) => arg.startsWith("--scheduler-only="))?.split("=")[1];

/** `--scheduler-only=TEXT`: only the cases whose name contains TEXT. */
function selectedCases(): Case[] {
  const text = only();
  const cases = schedulerCases(smallFleetCrossing());
  return text ? cases.filter((c) => `${c.op}.${c.label}`.includes(text)) : cases;
}

function selectedLiveCases(): LiveCase[] {
  const text = only();
  return text ? LIVE_CASES.filter((c) => `live.${c.label}`.includes(text)) : LIVE_CASES;
}

export const scheduler: BenchGroup = async () => {
  const state = tempState();
  const worker = await BenchWorker.start(state.dir, process.argv.includes("--scheduler-verbose"));
  const unit = worker.measuresCpu ? "cpu ms/op" : "wall ms/op";
  const results: BenchResult[] = [];
  /** Each fleet's `job` figure (by its fleet), to set a partition's share against. */
  const singleJobMs = new Map<string, number>();
  try {
    for (const [index, c] of selectedCases().entries()) {
      const f = await measure(worker, c, index);
      const { waiting, keys, leases, nodes, parked } = c.fleet;
      const note =
        `per operation: ${perCall(f.ours, "statements").toFixed(1)} statements, ${perCall(f.ours, "rowsRead").toFixed(0)} rows read, ` +
        `${perCall(f.ours, "rowsWritten").toFixed(1)} written (trivial object: ${perCall(f.reference, "statements").toFixed(1)} ` +
        `statement, ${perCall(f.reference, "rowsWritten").toFixed(1)} written); fleet: ${nodes} nodes, ${waiting} waiting, ` +
        `${keys} keys, ${leases} leases, ${parked} parked`;
      // A job is JOB_CALLS calls of the object; its reference is that many trivial writes.
      const calls =
        c.op === "job"
          ? JOB_CALLS
          : c.op === "job_partition"
            ? JOB_CALLS / BENCH_PARTITIONS
            : c.op === "root_job"
              ? ROOT_CALLS_PER_JOB
              : 1;
      results.push(result(`scheduler.${c.op}.${c.label}`, f.msPerOp, f.refMsPerOp * calls, unit, note));
      console.error(
        `scheduler: ${c.op}.${c.label} ${f.msPerOp.toFixed(3)} vs ${f.refMsPerOp.toFixed(3)} ${unit}`,
      );
      const fleetKey = JSON.stringify(c.fleet);
      const single = singleJobMs.get(fleetKey);
      if (c.op === "job") singleJobMs.set(fleetKey, f.msPerOp);
      else if (c.op === "job_partition" && single !== undefined) {
        const crossing =
          c.fleet.waiting > 0
            ? "work waiting, none crossing"
            : c.crossingRate === undefined
              ? "no work waiting, every job crossing (the most)"
              : `no work waiting, ${c.crossingRate.toFixed(3)} of the jobs crossing (simulated at load ${CROSSING_LOAD})`;
        console.error(
          `scheduler: ${c.label}: one of ${BENCH_PARTITIONS} partitions spends ${(f.msPerOp / single).toFixed(3)} of one Dispatcher's object-time per job (${f.msPerOp.toFixed(3)} vs ${single.toFixed(3)} ${unit}; ${crossing})`,
        );
      }
      if (c.op === "job")
        results.push(
          result(
            `scheduler.jobs_per_object_second.${c.label}`,
            1000 / f.msPerOp,
            null,
            "jobs/s",
            `one Dispatcher's jobs per second of its own time (x60 = ${((60 * 1000) / f.msPerOp).toFixed(0)} jobs/min): ` +
              `hand-off and its duplicate, a grant, ${JOB_HEARTBEATS} heartbeats, ${JOB_POLLS} polls' queue figures, complete`,
          ),
        );
    }
    for (const [index, c] of selectedLiveCases().entries()) {
      const f = await measureLive(worker, c, index);
      const { nodes, streams, spare } = c.fleet;
      const note =
        `per stream: ${perCall(f.ours, "statements").toFixed(1)} storage calls, ${perCall(f.ours, "rowsRead").toFixed(1)} entries read, ` +
        `${perCall(f.ours, "rowsWritten").toFixed(1)} written, over the shard and the key's object (trivial object: ` +
        `${perCall(f.reference, "statements").toFixed(1)} statement); one shard: ${nodes} nodes running ${streams} streams, ${spare} slots spare each`;
      results.push(result(`scheduler.live_assign_release.${c.label}`, f.msPerOp, f.refMsPerOp, unit, note));
      console.error(
        `scheduler: live.${c.label} ${f.msPerOp.toFixed(3)} vs ${f.refMsPerOp.toFixed(3)} ${unit}; ${note}`,
      );
    }
  } finally {
    await worker.stop();
    state.remove();
  }
  return results;
};
