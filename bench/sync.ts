/**
 * `sync` bench group: end-to-end latency of a 5 s clip through POST /v1/audio/transcriptions on the
 * local stack (wrangler dev + one inference node, synthetic `base` model) against whisper.cpp's own
 * whisper-server built from the same source tree, same model, same threads, hit with the same
 * multipart request at /inference. 20 sequential requests per side, interleaved (ours, theirs, theirs,
 * ours...), then 4 concurrent clients per side (whisper-server serializes requests behind one mutex;
 * our node runs one decode at a time too, VOXEDGE_CONCURRENCY=1).
 *
 * Decode work is bounded identically: greedy, no temperature fallback (ours VOXEDGE_TEMPERATURE_INC=0;
 * whisper-server takes `-nf` but does not apply it at this commit, so every request also sends
 * temperature_inc=0), segment timestamps on and token timestamps off on both, non-speech tokens
 * suppressed on both, language given, and whisper's own length cap (VOXEDGE_MAX_TOKENS=0: the server
 * has no max_tokens option, and `-ml` only splits segments), no text context (whisper-server's
 * default; ours decodes every window with noContext). Diarization is off on our node, and the request
 * has no chunking_strategy, so like whisper-server it decodes every sample with no VAD (SYNC_CHUNKING=auto
 * sends `auto`: our node's Silero VAD then runs before the decode).
 *
 * Our side's time is split by stage from the node's own log (bench/node-log.ts): everything before
 * the node has the lease (upload through wrangler dev to R2, task, queue, lease hand-off), then the
 * node's fetch, PCM read, whisper stages, post-processing and `complete`, then the Worker's reply.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { loadavg } from "node:os";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { freePort } from "../scripts/lib/ports.ts";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { NodeLog, nodeStages, type TASK_STAGES } from "./node-log.ts";
import { cpuMs, descendants } from "./proc.ts";
import { median, percentile } from "./stats.ts";
import { clipForm, prepareClip } from "./sync-clip.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";
import { whisperTools } from "./whisper-tools.ts";

const THREADS = 2;
/**
 * Unset: no chunking_strategy, OpenAI's one block, every sample decoded, as whisper-server does (it
 * has no VAD). SYNC_CHUNKING=auto measures our route with the Silero VAD leaving out non-speech.
 */
const chunking = process.env.SYNC_CHUNKING;
const SEQUENTIAL = 20;
const CLIENTS = 4;
const PER_CLIENT = 5;
/** Decode options both sides get per request (whisper-server's form fields). */
const SERVER_FIELDS = {
  language: "en",
  response_format: "json",
  temperature: "0",
  temperature_inc: "0",
  token_timestamps: "false",
  suppress_nst: "true",
};
const log = (msg: string) => process.stderr.write(`sync: ${msg}\n`);

interface Side {
  name: string;
  /** The processes serving this side's requests, by part (CPU accounting of the concurrent rounds). */
  processes: () => Record<string, number[]>;
  /** One request; resolves with its wall time in ms and the transcript text. */
  once: (client: number) => Promise<{ ms: number; text: string }>;
  stop: () => Promise<void>;
}

/** Our request's wall time split by stage (ms); node stages from its log, the rest around them. */
type OurStages = Record<"to_lease" | (typeof TASK_STAGES)[number] | "reply", number>;

async function timed(
  send: () => Promise<Response>,
): Promise<{ ms: number; text: string; response: Response }> {
  const started = performance.now();
  const response = await send();
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body.slice(0, 300)}`);
  return { ms, text: (JSON.parse(body) as { text: string }).text, response };
}

/** wrangler dev + one inference node; one API key per client (the per-key enqueue limit is 60/min). */
async function startOurs(wav: Buffer): Promise<
  Side & {
    lastRawText: () => Promise<string>;
    lastStages: () => Promise<OurStages>;
    computeMs: () => number[];
  }
> {
  const platform = await LocalPlatform.start({ keys: CLIENTS + 1, nodeEnv: {} });
  let node: ChildProcess;
  try {
    node = await platform.startNode({
      model: "base",
      logs: true, // the per-task stage lines
      env: {
        VOXEDGE_THREADS: String(THREADS),
        VOXEDGE_CONCURRENCY: "1",
        VOXEDGE_MAX_TOKENS: "0",
        VOXEDGE_TEMPERATURE_INC: "0",
        VOXEDGE_DIARIZE: "0",
      },
    });
  } catch (error) {
    await platform.stop();
    throw error;
  }
  const nodeLog = new NodeLog(node.stdout as NonNullable<typeof node.stdout>);
  const { url, keys } = platform;
  const fields = {
    model: "whisper-1",
    language: "en",
    response_format: "json",
    ...(chunking && { chunking_strategy: chunking }),
  };
  let lastTask = "";
  let lastSpan = { startedAt: 0, endedAt: 0 };
  const wranglerPid = platform.workerPid() ?? -1;
  return {
    name: "ours",
    processes: () => ({
      // wrangler dev (node), its esbuild and both workerd processes: what `npm start` runs around the node
      platform: [wranglerPid, ...descendants(wranglerPid, /./)],
      node: [node.pid ?? -1, ...descendants(node.pid ?? -1, /./)],
    }),
    once: async (client) => {
      const startedAt = Date.now();
      const run = await timed(() =>
        fetch(`${url}/v1/audio/transcriptions`, {
          method: "POST",
          headers: { authorization: `Bearer ${keys[client] ?? keys[0]}` },
          body: clipForm(wav, fields),
        }),
      );
      lastSpan = { startedAt, endedAt: Date.now() };
      lastTask = run.response.headers.get("x-voxedge-task-id") ?? "";
      return { ms: run.ms, text: run.text };
    },
    computeMs: () =>
      nodeLog.tasks().map((t) => t.stages.melMs + t.stages.sampleMs + t.stages.encodeMs + t.stages.decodeMs),
    lastStages: async () => {
      const span = lastSpan;
      const task = await nodeLog.task(lastTask);
      return {
        to_lease: task.startedAt - span.startedAt,
        ...nodeStages(task),
        reply: span.endedAt - task.doneAt,
      };
    },
    lastRawText: async () => {
      const response = await fetch(`${url}/transcribe/${lastTask}`, {
        headers: { authorization: `Bearer ${keys[0]}` },
      });
      return ((await response.json()) as { result: { raw_text: string } }).result.raw_text;
    },
    stop: () => platform.stop(),
  };
}

/** whisper_print_timings' compute (log-mel, sampling, encoder, decoder passes) in ms, from a log. */
function printedComputeMs(log: string): number {
  const ms = (label: string) =>
    Number(new RegExp(`${label} time =\\s+([\\d.]+) ms`).exec(log)?.[1] ?? Number.NaN);
  return ["mel", "sample", "encode", "decode", "batchd", "prompt"].reduce((sum, k) => sum + ms(k), 0);
}

async function startTheirs(
  bin: string,
  model: string,
  wav: Buffer,
): Promise<Side & { requests: () => number; computeMs: () => number }> {
  const port = await freePort();
  const child = spawn(
    bin,
    [
      "-m",
      model,
      "-t",
      String(THREADS),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "-nf",
      "-bs",
      "1",
      "-sns",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  // at exit whisper-server prints its whisper_print_timings, summed over every request it served
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr = (stderr + text).slice(-20_000);
  });
  let requests = 0;
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; ; i++) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || i > 240) {
      await stop();
      throw new Error("whisper-server did not start");
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    name: "whisper-server",
    processes: () => ({ server: [child.pid ?? -1] }),
    once: async () => {
      const run = await timed(() =>
        fetch(`${url}/inference`, { method: "POST", body: clipForm(wav, SERVER_FIELDS) }),
      );
      requests++;
      return { ms: run.ms, text: run.text };
    },
    stop,
    requests: () => requests,
    computeMs: () => printedComputeMs(stderr),
  };
}

interface ConcurrentRound {
  latencies: number[];
  wallMs: number;
  /** CPU ms per request of each part of the side (its processes' user + system time over the round). */
  cpuPerRequest: Record<string, number>;
}

/**
 * CLIENTS clients, each sending PER_CLIENT requests back to back; per-request latencies, wall time,
 * and the CPU each part of the side spent per request (on a machine the decodes keep busy, what the
 * service spends around the decode is taken from the decodes).
 */
async function concurrent(side: Side): Promise<ConcurrentRound> {
  const latencies: number[] = [];
  const parts = side.processes();
  const cpuBefore = Object.fromEntries(Object.entries(parts).map(([part, pids]) => [part, cpuMs(pids)]));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; i < PER_CLIENT; i++) latencies.push((await side.once(client + 1)).ms);
    }),
  );
  const wallMs = performance.now() - started;
  const cpuPerRequest = Object.fromEntries(
    Object.entries(parts).map(([part, pids]) => [
      part,
      (cpuMs(pids) - (cpuBefore[part] ?? Number.NaN)) / latencies.length,
    ]),
  );
  return { latencies, wallMs, cpuPerRequest };
}

/** The median over rounds of a part's CPU per request (NaN for a part a side does not have). */
function cpuOf(rounds: ConcurrentRound[], part?: string): number {
  return median(
    rounds.map((round) =>
      part === undefined
        ? Object.values(round.cpuPerRequest).reduce((a, b) => a + b, 0)
        : (round.cpuPerRequest[part] ?? Number.NaN),
    ),
  );
}

export const sync: BenchGroup = async (): Promise<BenchResult[]> => {
  const [tools, model, wav] = await Promise.all([
    whisperTools(log),
    ensureSyntheticModel("base"),
    prepareClip("sync-clip-5s.wav", "The synchronous endpoint answers while the caller waits for it."),
  ]);
  const bin = tools.server;
  const loadAtStart = loadavg()[0] ?? 0;
  log("starting wrangler dev + inference node, and whisper-server");
  const ours = await startOurs(wav);
  let theirs: Awaited<ReturnType<typeof startTheirs>> | null = null;
  try {
    theirs = await startTheirs(bin, model, wav);
    // Warm-up (first decode, R2, D1, Durable Objects), and a parity check: same decode on both sides.
    await ours.once(0);
    const theirText = (await theirs.once(0)).text.trim();
    const ourRaw = (await ours.lastRawText()).trim();
    const sameText = ourRaw === theirText;
    log(`warm; decoded text ${sameText ? "identical" : `differs (ours "${ourRaw}", theirs "${theirText}")`}`);

    const oursSeq: number[] = [];
    const theirsSeq: number[] = [];
    const oursStages: OurStages[] = [];
    const oursOnce = async () => {
      oursSeq.push((await ours.once(0)).ms);
      oursStages.push(await ours.lastStages());
    };
    for (let i = 0; i < SEQUENTIAL; i++) {
      // ABBA: ours first on even rounds, theirs first on odd ones.
      if (i % 2 === 0) {
        await oursOnce();
        theirsSeq.push((await theirs.once(0)).ms);
      } else {
        theirsSeq.push((await theirs.once(0)).ms);
        await oursOnce();
      }
      if ((i + 1) % 5 === 0) log(`sequential ${i + 1}/${SEQUENTIAL}`);
    }
    const conOurs: ConcurrentRound[] = [];
    const conTheirs: ConcurrentRound[] = [];
    for (const [round, order] of [
      ["theirs", "ours"],
      ["ours", "theirs"],
    ].entries()) {
      for (const name of order) {
        log(`${CLIENTS} concurrent clients x ${PER_CLIENT} requests, ${name}, round ${round + 1}/2`);
        if (name === "ours") conOurs.push(await concurrent(ours));
        else conTheirs.push(await concurrent(theirs));
      }
    }
    const all = (runs: { latencies: number[] }[]) => runs.flatMap((r) => r.latencies);
    const wall = (runs: { wallMs: number }[]) => median(runs.map((r) => r.wallMs));
    const p = (xs: number[], q: number) => percentile(xs, q);
    const setup =
      `5 s clip, synthetic base, ${THREADS} threads, greedy, no fallback, whisper's own length cap; ` +
      `decoded text ${sameText ? "identical on both sides" : "differs between sides"}; ` +
      `load avg ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end`;
    const oursCompute = ours.computeMs();
    await theirs.stop(); // prints its summed timings
    const theirsCompute = theirs.computeMs() / theirs.requests();
    // oursSeq[i] and theirsSeq[i] ran back to back (ABBA), so their difference is free of slow drift
    const pairExtra = oursSeq.map((ms, i) => ms - (theirsSeq[i] ?? Number.NaN));
    const pairRatio = oursSeq.map((ms, i) => ms / (theirsSeq[i] ?? Number.NaN));
    const stageNames = Object.keys(oursStages[0] ?? {}) as (keyof OurStages)[];
    const stageRows = stageNames.map((stage) =>
      result(
        `sync.stage.${stage}`,
        median(oursStages.map((s) => s[stage])),
        null,
        "ms",
        stage === "to_lease"
          ? "ours, p50 of the sequential requests: request start → the node logs the lease (upload via wrangler dev to R2, task, queue, lease hand-off)"
          : stage === "reply"
            ? "ours: the node's 'task done' → the response has arrived (the Worker's wait wakes and answers)"
            : "ours, p50 of the sequential requests, from the node's task log",
      ),
    );
    return [
      result(
        "sync.ours_vs_whisper_server",
        p(oursSeq, 50),
        p(theirsSeq, 50),
        "ms",
        `p50 of ${SEQUENTIAL} sequential, interleaved; ours: /v1/audio/transcriptions through wrangler dev ` +
          `(upload to R2, task, queue, lease, node, result), chunking_strategy ${chunking ?? "unset (every sample decoded)"}; ` +
          `theirs: whisper-server /inference; ${setup}; target ratio <= 1.05`,
      ),
      result(
        "sync.ours_vs_whisper_server.p95",
        p(oursSeq, 95),
        p(theirsSeq, 95),
        "ms",
        `p95 of the same ${SEQUENTIAL} sequential requests per side`,
      ),
      result(
        "sync.ours_vs_whisper_server.paired_extra",
        median(pairExtra),
        null,
        "ms",
        `median over the ${SEQUENTIAL} back-to-back pairs of ours minus theirs: what our side adds to a ` +
          "request with the machine's drift between minutes taken out (the p50s above are of requests minutes " +
          `apart). Per pair as a ratio: median ${median(pairRatio).toFixed(3)}, ` +
          `quartiles ${percentile(pairRatio, 25).toFixed(3)}-${percentile(pairRatio, 75).toFixed(3)}`,
      ),
      result(
        "sync.concurrent4.p50",
        p(all(conOurs), 50),
        p(all(conTheirs), 50),
        "ms",
        `${CLIENTS} clients x ${PER_CLIENT} requests each, 2 rounds per side (ABBA); per-request latency p50; ` +
          "both sides decode one request at a time",
      ),
      result(
        "sync.concurrent4.p95",
        p(all(conOurs), 95),
        p(all(conTheirs), 95),
        "ms",
        `${CLIENTS} clients x ${PER_CLIENT} requests each, 2 rounds per side; per-request latency p95`,
      ),
      result(
        "sync.concurrent4.wall",
        wall(conOurs),
        wall(conTheirs),
        "ms",
        `median wall time for all ${CLIENTS * PER_CLIENT} requests of a round ` +
          `(${((CLIENTS * PER_CLIENT * 1000) / wall(conOurs)).toFixed(2)} vs ` +
          `${((CLIENTS * PER_CLIENT * 1000) / wall(conTheirs)).toFixed(2)} req/s)`,
      ),
      result(
        "sync.concurrent4.cpu_per_request",
        cpuOf(conOurs),
        cpuOf(conTheirs),
        "ms",
        `CPU (user + system, all threads) per request over the ${CLIENTS}-client rounds, median of the rounds: ` +
          `ours ${cpuOf(conOurs, "node").toFixed(0)} ms in the node and ${cpuOf(conOurs, "platform").toFixed(0)} ms ` +
          "in wrangler dev (its node, esbuild and workerd processes); theirs whisper-server's. With both sides' " +
          "decodes keeping the cores busy, the difference is taken from the decodes",
      ),
      result(
        "sync.whisper_compute_mean",
        oursCompute.reduce((a, b) => a + b, 0) / oursCompute.length,
        theirsCompute,
        "ms",
        `whisper's own log-mel + encoder + decoder + sampling time per request, mean over all ${oursCompute.length} ` +
          "requests of each side (ours: the node's task log; theirs: whisper-server's whisper_print_timings at exit). " +
          "Same work on both sides: a difference here is the shared machine, not the service around it",
      ),
      ...stageRows,
    ];
  } finally {
    await theirs?.stop();
    await ours.stop();
  }
};
