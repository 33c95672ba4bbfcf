/**
 * Group `reliability`: the task engine under load with faults, on the whole local platform (loopback
 * only). A burst of jobs from several API keys through the three ways in (URL from a local media
 * server, /transcribe/upload, the presigned flow), a third of them sent two or three times with one
 * Idempotency-Key; two supervised inference nodes on the synthetic micro model; one node SIGKILLed
 * while it holds tasks (the supervisor brings it back); and the platform itself (wrangler dev, its
 * workerd, the in-memory Queue) stopped and started again over its persisted state mid-run.
 *
 * It counts what must never happen (a lost task: accepted or listed but never done or failed; a
 * duplicate: two tasks for one idempotent request, or one task run to done twice, from the nodes' own
 * logs) and measures what the faults cost: queue wait (accepted → a node starts it), and how long the
 * tasks hit by a fault waited for their next attempt, against the bound the design gives (the lease TTL,
 * and the platform's downtime).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { speechWav } from "../test/native/audio.ts";
import { type Job, type JobOutcome, submitJob } from "./fault-client.ts";
import { type Settled, settleAll, taskRuns } from "./reliability-ledger.ts";
import { percentile } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const KEYS = 12;
const JOBS = 324;
const IN_FLIGHT = 8;
const LEASE_TTL_SEC = 10;
const FLOWS = ["url", "upload", "presign"] as const;
/** Accepted share of the burst at which each fault strikes. */
const KILL_NODE_AT = 0.3;
const RESTART_PLATFORM_AT = 0.6;
/** Submitting may take this long (retries through the outage included); settling another 5 minutes. */
const SUBMIT_WINDOW_MS = 6 * 60_000;
const SETTLE_WINDOW_MS = 5 * 60_000;

const log = (message: string) => process.stderr.write(`reliability: ${message}\n`);

function jobs(keys: string[], runId: string): Job[] {
  return Array.from({ length: JOBS }, (_, index) => {
    const keyed = index % 3 === 0;
    return {
      index,
      key: keys[index % keys.length] ?? "",
      keyIndex: index % keys.length,
      flow: FLOWS[Math.floor(index / keys.length) % FLOWS.length] ?? "url",
      context: `${runId}-job-${index}`,
      idempotencyKey: keyed ? `${runId}-idem-${index}` : null,
      copies: keyed ? 2 + (index % 2) : 1,
    };
  });
}

interface Faults {
  killAt: number | null;
  killedNode: string | null;
  /** Tasks the killed node was running. */
  tasksOnKilledNode: string[];
  restartStoppedAt: number | null;
  restartUpAt: number | null;
  nodeBackAt: number | null;
}

/** Runs the faults as the burst's acceptance passes each mark. */
async function strike(stack: LocalPlatform, accepted: () => number, faults: Faults): Promise<void> {
  while (accepted() < JOBS * KILL_NODE_AT) await new Promise((r) => setTimeout(r, 100));
  // A node that is running tasks right now, so the kill costs leases.
  for (;;) {
    const running = runningTasks(stack);
    const victim = ["node-a", "node-b"].find((node) => (running.get(node)?.length ?? 0) > 0);
    const child = victim ? stack.nodePid(victim) : undefined;
    if (victim && child) {
      faults.killAt = Date.now();
      faults.killedNode = victim;
      faults.tasksOnKilledNode = running.get(victim) ?? [];
      process.kill(child, "SIGKILL");
      log(`SIGKILLed ${victim} (pid ${child}) running ${faults.tasksOnKilledNode.length} task(s)`);
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const killedAt = faults.killAt ?? 0;
  const back = await stack.waitForLog(
    (line) => line.node === faults.killedNode && line.msg === "pulling work" && line.time > killedAt,
    60_000,
  );
  faults.nodeBackAt = back.time;
  while (accepted() < JOBS * RESTART_PLATFORM_AT) await new Promise((r) => setTimeout(r, 100));
  faults.restartStoppedAt = Date.now();
  log("stopping the platform (wrangler dev) ...");
  await stack.stopWorker();
  await stack.startWorker();
  faults.restartUpAt = Date.now();
  log(`platform back after ${((faults.restartUpAt - faults.restartStoppedAt) / 1000).toFixed(1)} s`);
}

/** Task ids each node has started and not yet finished (done, failed or lost), from the node logs. */
function runningTasks(stack: LocalPlatform): Map<string, string[]> {
  const open = new Map<string, Set<string>>();
  for (const line of stack.nodeLog) {
    if (!line.task_id) continue;
    const tasks = open.get(line.node) ?? new Set<string>();
    open.set(line.node, tasks);
    if (line.msg === "task started") tasks.add(line.task_id);
    else tasks.delete(line.task_id);
  }
  return new Map([...open].map(([node, tasks]) => [node, [...tasks]]));
}

/** A local HTTP server serving the clip for URL jobs (any path). */
async function mediaServer(bytes: Buffer) {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "audio/wav", "content-length": bytes.length });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, host: `127.0.0.1:${port}` };
}

export const reliability: BenchGroup = async () => {
  const clip = readFileSync(await speechWav("The task engine was built to lose nothing under faults."));
  const media = await mediaServer(clip);
  const stack = await LocalPlatform.start({
    keys: KEYS,
    nodeEnv: {},
    cronEveryMs: 20_000,
    vars: {
      URL_ALLOWLIST: media.host,
      LEASE_TTL_SEC: String(LEASE_TTL_SEC),
      MAX_CONCURRENT_TRANSCRIBE_JOBS: "4",
    },
  });
  try {
    const nodeEnv = {
      URL_ALLOWLIST: media.host,
      VOXEDGE_CONCURRENCY: "2",
      VOXEDGE_THREADS: "1",
      VOXEDGE_MAX_TOKENS: "8",
      VOXEDGE_HEARTBEAT_MS: "1000",
      VOXEDGE_DIARIZE: "0",
      VOXEDGE_LIVE_CAPACITY: "0",
      VOXEDGE_CONTENT_CONCURRENCY: "0",
      VOXEDGE_DRAIN_MS: "1000",
    };
    await stack.superviseNode("node-a", { env: nodeEnv });
    await stack.superviseNode("node-b", { env: nodeEnv });
    const runId = `rel${Date.now().toString(36)}`;
    const burst = jobs(stack.keys, runId);
    const outcomes: JobOutcome[] = [];
    const faults: Faults = {
      killAt: null,
      killedNode: null,
      tasksOnKilledNode: [],
      restartStoppedAt: null,
      restartUpAt: null,
      nodeBackAt: null,
    };
    const started = Date.now();
    const deadline = started + SUBMIT_WINDOW_MS;
    const striking = strike(stack, () => outcomes.filter((o) => o.taskIds.size > 0).length, faults);
    let next = 0;
    const submitters = Array.from({ length: IN_FLIGHT }, async () => {
      for (let job = burst[next++]; job; job = burst[next++]) {
        outcomes.push(
          await submitJob(
            stack.url,
            job,
            { url: (j) => `http://${media.host}/${j.context}.wav`, bytes: clip },
            deadline,
          ),
        );
      }
    });
    await Promise.all(submitters);
    await striking;
    const submittedMs = Date.now() - started;
    log(`${outcomes.length} jobs submitted in ${(submittedMs / 1000).toFixed(0)} s; settling ...`);
    const settled = await settleAll(stack, outcomes, Date.now() + SETTLE_WINDOW_MS);
    return figures(stack, outcomes, settled, faults, submittedMs);
  } finally {
    await stack.stop();
    media.server.close();
  }
};

function figures(
  stack: LocalPlatform,
  outcomes: JobOutcome[],
  settled: Settled,
  faults: Faults,
  submittedMs: number,
): BenchResult[] {
  const runs = taskRuns(stack.nodeLog);
  const note = `${JOBS} jobs, ${KEYS} keys, 2 nodes (micro model), LEASE_TTL_SEC=${LEASE_TTL_SEC}; one node SIGKILLed, wrangler dev restarted`;
  const waits: number[] = [];
  for (const outcome of outcomes) {
    for (const taskId of outcome.taskIds) {
      const first = runs.get(taskId)?.starts[0];
      if (first !== undefined && outcome.acceptedAt !== null)
        waits.push(Math.max(0, first - outcome.acceptedAt));
    }
  }
  // What a fault cost a task it hit: from its first start to the start of the attempt that finished it.
  const retryWait = (ids: Iterable<string>) =>
    [...ids]
      .map((id) => runs.get(id))
      .filter((run) => run && run.starts.length > 1)
      .map((run) => run!.starts.at(-1)! - run!.starts[0]!);
  const killWaits = retryWait(faults.tasksOnKilledNode);
  const restartRetried = [...runs.keys()].filter((id) => !faults.tasksOnKilledNode.includes(id));
  const restartWaits = retryWait(restartRetried);
  const downMs = (faults.restartUpAt ?? 0) - (faults.restartStoppedAt ?? 0);
  const sum = (pick: (o: JobOutcome) => number) => outcomes.reduce((n, o) => n + pick(o), 0);
  const max = (values: number[]) => (values.length ? Math.max(...values) : 0);
  const requests = outcomes.reduce((n, o) => n + o.job.copies, 0);
  log(`failure codes: ${JSON.stringify(settled.failureCodes)}`);
  return [
    result(
      "reliability.jobs_submitted",
      outcomes.length,
      JOBS,
      "jobs",
      `${note}; ${requests} create requests (idempotent copies included), ${(submittedMs / 1000).toFixed(0)} s`,
    ),
    result(
      "reliability.tasks_accepted",
      settled.accepted,
      null,
      "tasks",
      "distinct task ids the API answered with",
    ),
    result("reliability.done", settled.done, settled.listed, "tasks", "reference = tasks listed in /history"),
    result(
      "reliability.failed",
      settled.failed,
      settled.listed,
      "tasks",
      `codes: ${JSON.stringify(settled.failureCodes)}`,
    ),
    result(
      "reliability.lost",
      settled.lost,
      0,
      "tasks",
      "accepted or listed, but not done or failed by the end (must be 0)",
    ),
    result(
      "reliability.duplicated_idempotent",
      settled.duplicateIdempotent,
      0,
      "requests",
      "idempotent jobs with more than one task (replies or /history) (must be 0)",
    ),
    result(
      "reliability.done_twice",
      [...runs.values()].filter((r) => r.dones > 1).length,
      0,
      "tasks",
      "tasks a node completed more than once, from the nodes' logs (must be 0)",
    ),
    result(
      "reliability.idempotent_replays",
      sum((o) => o.replayed),
      null,
      "replies",
      `Idempotent-Replayed answers; ${sum((o) => o.conflicts)} 409 in-progress answers retried`,
    ),
    result(
      "reliability.answers_lost",
      outcomes.filter((o) => o.answerLost).length,
      null,
      "requests",
      `requests without a key whose answer was lost in the restart; ${settled.unacknowledged} task(s) exist that no client heard of, and they ran too`,
    ),
    result(
      "reliability.history_keys_exact",
      settled.exactKeys,
      KEYS,
      "keys",
      "keys whose /history total equals the tasks created for them",
    ),
    result(
      "reliability.queue_wait.p50_ms",
      percentile(waits, 50),
      null,
      "ms",
      "accepted -> a node starts it (first attempt), over all tasks; the burst's backlog dominates",
    ),
    result("reliability.queue_wait.p99_ms", percentile(waits, 99), null, "ms", "accepted -> first start"),
    result(
      "reliability.fault_wait.node_kill.max_ms",
      max(killWaits),
      LEASE_TTL_SEC * 1000,
      "ms",
      `${killWaits.length} of ${faults.tasksOnKilledNode.length} tasks on the killed node retried: first start -> retry start; reference = lease TTL`,
    ),
    result(
      "reliability.fault_wait.restart.max_ms",
      max(restartWaits),
      downMs,
      "ms",
      `${restartWaits.length} other tasks retried: first start -> retry start; reference = platform downtime`,
    ),
    result(
      "reliability.platform_restart.down_ms",
      downMs,
      null,
      "ms",
      "wrangler dev stopped (SIGTERM) -> /health answers again, same --persist-to",
    ),
    result(
      "reliability.node_restart.ms",
      (faults.nodeBackAt ?? 0) - (faults.killAt ?? 0),
      1_000,
      "ms",
      "SIGKILL -> the supervisor's new node pulls work; reference = first backoff step",
    ),
    result(
      "reliability.retries.rate_limited",
      sum((o) => o.rateLimited),
      null,
      "requests",
      `429 answers retried; ${sum((o) => o.resent)} sends repeated through the outage`,
    ),
  ];
}
