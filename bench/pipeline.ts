/**
 * Group `pipeline`: the transcription path end to end on the local stack (wrangler dev + one
 * inference node + the native addon): latency of a 10 s clip from enqueue to `done` split into
 * stages (from the node's own task log: lease hand-off, fetch, PCM read, whisper state, log-mel,
 * encoder, decoder, sampling, diarization, post-processing, complete), throughput with 20 queued
 * jobs, and the node's peak RSS as the input grows to two hours.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { writeWav } from "../test/helpers/wav.ts";
import { repeatTo, SENTENCE, speechPcm } from "../test/native/audio.ts";
import { NodeLog, nodeStages, TASK_STAGES } from "./node-log.ts";
import { median } from "./stats.ts";
import { type BenchResult, result } from "./types.ts";

const DIR = "bench/.cache/pipeline";
const CLIP_SEC = 10;
const LATENCY_RUNS = 10;
const THROUGHPUT_JOBS = 20;
const RSS_MINUTES = [10, 30, 60, 120];

/** An inference node serving the base model, with its info log read for the stage lines. */
async function startLoggedNode(
  stack: LocalPlatform,
  env: Record<string, string>,
): Promise<{ node: ChildProcess; log: NodeLog }> {
  const node = await stack.startNode({ model: "base", logs: true, env });
  return { node, log: new NodeLog(node.stdout as NonNullable<typeof node.stdout>) };
}

async function enqueue(
  stack: LocalPlatform,
  url: string,
): Promise<{ taskId: string; at: number; epoch: number }> {
  const at = performance.now();
  const epoch = Date.now();
  const response = await fetch(`${stack.url}/transcribe`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/json" },
    body: JSON.stringify({ file_url: url, language: "en" }),
  });
  if (response.status !== 200) throw new Error(`enqueue: ${response.status} ${await response.text()}`);
  return { taskId: ((await response.json()) as { task_id: string }).task_id, at, epoch };
}

/** Peak resident set of a process (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

async function latencyAndThroughput(): Promise<BenchResult[]> {
  const stack = await LocalPlatform.start({ serveDir: DIR, vars: { LEASE_TTL_SEC: "60" } });
  let node: ChildProcess | null = null;
  try {
    const logged = await startLoggedNode(stack, {
      VOXEDGE_MAX_TOKENS: "32",
      VOXEDGE_THREADS: "2",
    });
    node = logged.node;
    const clip = `${stack.filesOrigin}/clip.wav`;
    const stages = {
      total: [] as number[],
      queue: [] as number[],
      asr: [] as number[],
      diarize: [] as number[],
      other: [] as number[],
    };
    const jobStages: Record<string, number>[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const { taskId, at, epoch } = await enqueue(stack, clip);
      let started = Number.NaN;
      for (;;) {
        const status = await stack.poll(taskId);
        if (status.status !== "queued" && Number.isNaN(started)) started = performance.now();
        if (status.status === "failed") throw new Error(`pipeline job failed: ${status.error}`);
        if (status.status === "done" && status.result) {
          const seenAt = Date.now();
          const r = status.result;
          stages.total.push(performance.now() - at);
          stages.queue.push(started - at);
          stages.asr.push(r.asr_ms);
          stages.diarize.push(r.diarize_ms);
          stages.other.push(r.total_ms - Math.max(r.asr_ms, r.diarize_ms));
          const task = await logged.log.task(taskId);
          jobStages.push({
            lease_handoff: task.startedAt - epoch,
            ...nodeStages(task),
            to_client: seenAt - task.doneAt,
          });
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const clipMs = CLIP_SEC * 1000;
    const note = `synthetic base model, 2 threads, greedy ≤32 tokens/segment; p50 of ${LATENCY_RUNS} sequential ${CLIP_SEC} s clips; reference = clip duration`;
    const stageNote: Record<string, string> = {
      lease_handoff: "enqueue POST sent → the node logs the lease (task, queue, long-poll wake-up)",
      to_client: "the node's 'task done' → the 25 ms status poll sees done",
      diarize: "runs on the PCM stream while whisper decodes on its own thread (overlaps asr)",
    };
    const stageRows = ["lease_handoff", ...TASK_STAGES, "to_client"].map((stage) =>
      result(
        `pipeline.latency_10s.stage.${stage}`,
        median(jobStages.map((s) => s[stage] ?? Number.NaN)),
        null,
        "ms",
        `p50 of ${LATENCY_RUNS} jobs, node task log; ${stageNote[stage] ?? "node-side stage"}`,
      ),
    );
    const figures = [
      result("pipeline.latency_10s.total_ms", median(stages.total), clipMs, "ms", note),
      result(
        "pipeline.latency_10s.queue_wait_ms",
        median(stages.queue),
        clipMs,
        "ms",
        `${note}; enqueue → processing (25 ms polls)`,
      ),
      result("pipeline.latency_10s.asr_ms", median(stages.asr), clipMs, "ms", note),
      result(
        "pipeline.latency_10s.diarize_ms",
        median(stages.diarize),
        clipMs,
        "ms",
        `${note}; concurrent with asr`,
      ),
      result(
        "pipeline.latency_10s.download_post_ms",
        median(stages.other),
        clipMs,
        "ms",
        `${note}; total_ms − max(asr, diarize)`,
      ),
      ...stageRows,
    ];
    const started = performance.now();
    const jobs = [];
    for (let i = 0; i < THROUGHPUT_JOBS; i++) jobs.push(await enqueue(stack, clip));
    for (const job of jobs) {
      const end = await stack.settle(job.taskId, 600_000);
      if (end.status !== "done") throw new Error(`throughput job failed: ${end.error}`);
    }
    const wallMin = (performance.now() - started) / 60_000;
    const audioMin = (THROUGHPUT_JOBS * CLIP_SEC) / 60;
    figures.push(
      result(
        "pipeline.throughput",
        audioMin / wallMin,
        1,
        "audio-min/wall-min",
        `${THROUGHPUT_JOBS} queued ${CLIP_SEC} s jobs, one node, concurrency 1; reference = real time`,
      ),
    );
    return figures;
  } finally {
    node?.kill("SIGKILL");
    await stack.stop();
  }
}

async function rssByLength(): Promise<BenchResult[]> {
  const stack = await LocalPlatform.start({ serveDir: DIR, vars: { LEASE_TTL_SEC: "120" } });
  const figures: BenchResult[] = [];
  try {
    let first: number | null = null;
    for (const minutes of RSS_MINUTES) {
      const node: ChildProcess = await stack.startNode({
        env: { VOXEDGE_MAX_TOKENS: "8", VOXEDGE_THREADS: "2" },
      });
      const { taskId } = await enqueue(stack, `${stack.filesOrigin}/long-${minutes}.wav`);
      const end = await stack.settle(taskId, 900_000);
      if (end.status !== "done") throw new Error(`${minutes}-min job failed: ${end.error}`);
      const rss = peakRssMb(node.pid ?? 0);
      node.kill("SIGTERM");
      await new Promise((r) => node.once("exit", r));
      first ??= rss;
      figures.push(
        result(
          `pipeline.node_peak_rss_${minutes}min`,
          rss,
          first,
          "MB",
          "synthetic micro model; reference = the 10-min peak (flat means ratio ≈ 1)",
        ),
      );
    }
  } finally {
    await stack.stop();
  }
  return figures;
}

export async function pipeline(): Promise<BenchResult[]> {
  mkdirSync(DIR, { recursive: true });
  const speech = await speechPcm(SENTENCE);
  writeWav(join(DIR, "clip.wav"), repeatTo(speech, CLIP_SEC));
  for (const minutes of RSS_MINUTES)
    writeWav(join(DIR, `long-${minutes}.wav`), repeatTo(speech, minutes * 60));
  return [...(await latencyAndThroughput()), ...(await rssByLength())];
}
