/**
 * `decode` bench group: our addon against whisper.cpp's own whisper-cli built from the same tree,
 * same synthetic `base` model, same audio, 2 threads, and the same whisper_full_params on both sides:
 * greedy (best of 5, as whisper-cli), no temperature fallback, no timestamps (220 tokens per 30 s
 * window), no text context (whisper-cli's default), no token timestamps, flash attention on (both
 * defaults), language given. Ours runs in a child process so the harness's own memory does not
 * count. Runs are interleaved (ours, cli, cli, ours...) because the machine is shared; figures are
 * medians. Each decode's stages come from whisper's own counters on both sides (whisper-cli prints
 * them; the addon returns them per decode), so the table shows where any difference sits.
 *
 * Two passes: quiet (nothing started beside the runs) and loaded, beside a neighbour process the
 * bench starts that keeps one core busy; the loaded figures carry `.loaded` in their names. The
 * addon decides its threads per decode from other processes' sustained CPU use over the last two seconds
 * (native/thread-policy.ts), so every run starts after a pause of that window: the previous run
 * (a whisper-cli process) is not counted as a neighbour, and both sides start alike.
 */
import { type ChildProcess, execFile, fork, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { METER_WINDOW_MS } from "../native/cpu-meter.ts";
import type { DecodeTimings } from "../native/index.ts";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { parseWav, speechWav } from "../test/native/audio.ts";
import { machineBusyMs, median, otherCores, processCpuMs } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";
import { whisperTools } from "./whisper-tools.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = path.join(ROOT, "bench", ".cache");
const THREADS = 2;
/** DECODE_BENCH_ROUNDS / DECODE_BENCH_CLIPS shorten a run (a loaded machine, a smoke run). */
const ROUNDS = Number(process.env.DECODE_BENCH_ROUNDS ?? 3);
const CLIPS = Number(process.env.DECODE_BENCH_CLIPS ?? 20);
/** The addon's equivalent of `whisper-cli -nf -bs 1 -nt -t 2 -l en` (no_context is whisper-cli's default). */
const OURS_OPTS = {
  language: "en",
  beamSize: 1,
  temperatureInc: 0,
  timestamps: false,
  noContext: true,
  threads: THREADS,
};
/** Without -np: the prints (stderr, after the decode) carry whisper_print_timings. */
const CLI_FLAGS = ["-nf", "-bs", "1", "-nt", "-t", String(THREADS), "-l", "en"];
const log = (msg: string) => process.stderr.write(`decode: ${msg}\n`);

/**
 * ~60 s of speech and 20 distinct ~5 s clips, 16 kHz mono WAV (espeak-ng + ffmpeg), cached: a file
 * already in the cache is not spoken again, so a machine without espeak-ng (a GPU host) runs the bench
 * on a cache copied from one that has it.
 */
async function prepareAudio(): Promise<{ long: string; clips: string[] }> {
  const dir = path.join(CACHE, "audio");
  await mkdir(dir, { recursive: true });
  const padTo = async (text: string, out: string, seconds: number, loop: boolean) => {
    if (existsSync(out)) return out;
    const src = await speechWav(text);
    const input = loop ? ["-stream_loop", "-1", "-i", src] : ["-i", src];
    const args = [
      "-v",
      "error",
      "-y",
      ...input,
      "-af",
      "apad",
      "-t",
      String(seconds),
      "-ar",
      "16000",
      "-ac",
      "1",
    ];
    await run("ffmpeg", [...args, "-c:a", "pcm_s16le", out]);
    return out;
  };
  const paragraph =
    "Edge inference keeps audio close to the people who speak it. Each node pulls work from a queue, " +
    "decodes it with a resident model and reports segments as they are ready.";
  const long = await padTo(paragraph, path.join(dir, "speech-60s.wav"), 60, true);
  const clips: string[] = [];
  for (let i = 0; i < CLIPS; i++) {
    const text = `Clip number ${i + 1}. The meeting moved to room ${100 + i * 7} at ${i + 1} pm.`;
    clips.push(await padTo(text, path.join(dir, `clip-${i}.wav`), 5, false));
  }
  return { long, clips };
}

/** One decode's wall time split by stage, in ms. */
interface Stages {
  /** ours: getting a whisper state (pool hit or whisper_init_state); cli: model load. */
  setup: number;
  mel: number;
  encode: number;
  /** Decoder passes: one-token, batched and prompt. */
  decode: number;
  sample: number;
  /** The rest of the wall time. ours: thread hand-off, JS, result conversion; cli: process start and
   * exit, state init, audio read, output. */
  other: number;
}

const STAGES: (keyof Stages)[] = ["setup", "mel", "encode", "decode", "sample", "other"];

interface Run {
  ms: number;
  stages: Stages;
  /** Cores other processes kept busy during the run (see otherCores). */
  others: number;
  rssMb?: number | null;
  /** ours: the child's CPU time over the wall time, i.e. the threads the decode got. */
  cores?: number;
}

/** A run counts as quiet when other processes used less than this many cores meanwhile. */
const QUIET_CORES = 0.25;

/** whisper_print_timings' figures, as whisper-cli prints them. */
function cliStages(stderr: string, wallMs: number): Stages {
  const ms = (label: string) =>
    Number(new RegExp(`${label} time =\\s+([\\d.]+) ms`).exec(stderr)?.[1] ?? Number.NaN);
  const setup = ms("load");
  const decode = ms("decode") + ms("batchd") + ms("prompt");
  const compute = ms("mel") + ms("encode") + decode + ms("sample");
  return {
    setup,
    mel: ms("mel"),
    encode: ms("encode"),
    decode,
    sample: ms("sample"),
    other: wallMs - setup - compute,
  };
}

function ourStages(t: DecodeTimings, wallMs: number, setupMs = t.stateMs): Stages {
  const decode = t.decodeMs + t.batchdMs + t.promptMs;
  return {
    setup: setupMs,
    mel: t.melMs,
    encode: t.encodeMs,
    decode,
    sample: t.sampleMs,
    other: wallMs - setupMs - t.melMs - t.encodeMs - decode - t.sampleMs,
  };
}

/** Lets the addon's CPU meter window pass without the previous run in it (see the header). */
const settle = () => sleep(METER_WINDOW_MS + 100);

async function runCli(bin: string, model: string, wav: string): Promise<Run> {
  await settle();
  const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
  const [cmd, args] = timeBin
    ? [timeBin, ["-v", bin, "-m", model, "-f", wav, ...CLI_FLAGS]]
    : [bin, ["-m", model, "-f", wav, ...CLI_FLAGS]];
  const [busy, self] = [machineBusyMs(), processCpuMs()];
  const started = performance.now();
  const { stderr } = await run(cmd, args as string[], { maxBuffer: 16 << 20 });
  const ms = performance.now() - started;
  const seconds = (field: string) =>
    Number(new RegExp(`${field} \\(seconds\\): ([\\d.]+)`).exec(stderr)?.[1] ?? 0);
  const cliCpuMs = (seconds("User time") + seconds("System time")) * 1000;
  const others = otherCores(busy, machineBusyMs(), cliCpuMs + processCpuMs() - self, ms);
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
  return { ms, stages: cliStages(stderr, ms), others, rssMb: kb ? Number(kb) / 1024 : null };
}

/** A node child running our addon with the model resident; answers one request at a time over IPC. */
class AddonChild {
  private readonly child: ChildProcess;

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), ["--voxedge-decode-child"], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
  }

  request<T>(msg: Record<string, unknown>): Promise<T> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`addon child exited (${code}) during ${msg.op}`));
      this.child.once("exit", onExit);
      this.child.once("message", (reply: T & { error?: string }) => {
        this.child.off("exit", onExit);
        if (reply.error) reject(new Error(reply.error));
        else resolve(reply);
      });
      this.child.send(msg);
    });
  }

  close(): void {
    this.child.kill();
  }
}

interface TranscribeReply {
  ms: number;
  timings: DecodeTimings;
  /** The child's CPU time over the request. */
  cpuMs: number;
  /** Cores other processes used meanwhile (filled in by the parent). */
  others: number;
}

/** One transcribe request to a child, with the machine's other load measured around it. */
async function transcribeIn(child: AddonChild, wav: string): Promise<TranscribeReply> {
  await settle();
  const [busy, self] = [machineBusyMs(), processCpuMs()];
  const started = performance.now();
  const reply = await child.request<TranscribeReply>({ op: "transcribe", wav });
  const wall = performance.now() - started;
  reply.others = otherCores(busy, machineBusyMs(), reply.cpuMs + processCpuMs() - self, wall);
  return reply;
}

async function childMain(): Promise<void> {
  const { loadModel } = await import("../native/index.ts");
  let model: Awaited<ReturnType<typeof loadModel>> | null = null;
  process.on("message", async (msg: { op: string; model?: string; wav?: string }) => {
    try {
      if (msg.op === "load") {
        const started = performance.now();
        model = await loadModel(msg.model ?? "", { threads: THREADS });
        process.send?.({ ms: performance.now() - started });
      } else if (msg.op === "transcribe") {
        const cpuStarted = process.cpuUsage();
        const pcm = parseWav(await readFile(msg.wav ?? "")).samples;
        const started = performance.now();
        const transcript = await model?.transcribe(pcm, OURS_OPTS);
        const ms = performance.now() - started;
        const cpu = process.cpuUsage(cpuStarted);
        process.send?.({ ms, timings: transcript?.timings, cpuMs: (cpu.user + cpu.system) / 1000 });
      } else if (msg.op === "rss") {
        const status = await readFile("/proc/self/status", "utf8");
        const kb = (field: string) =>
          Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
        process.send?.({ hwmMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 });
      }
    } catch (err) {
      process.send?.({ error: String(err) });
    }
  });
}

/** Median of each stage over runs. */
function medianStages(runs: Run[]): Stages {
  return Object.fromEntries(
    STAGES.map((k) => [k, median(runs.map((r) => r.stages[k]))]),
  ) as unknown as Stages;
}

type Pass = "quiet" | "loaded";

/** A process that keeps one core busy until killed: the loaded pass's neighbour. */
function startNeighbour(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

export const decode: BenchGroup = async (): Promise<BenchResult[]> => {
  const [tools, model, audio] = await Promise.all([
    whisperTools(log),
    ensureSyntheticModel("base"),
    prepareAudio(),
  ]);
  await runCli(tools.cli, model, audio.clips[0] ?? ""); // warm the page cache and check the binary
  const quiet = await measure(tools.cli, model, audio, "quiet");
  log("loaded pass: beside a neighbour process that keeps one core busy");
  const neighbour = startNeighbour();
  try {
    return [...quiet, ...(await measure(tools.cli, model, audio, "loaded"))];
  } finally {
    neighbour.kill("SIGKILL");
  }
};

async function measure(
  cli: string,
  model: string,
  audio: { long: string; clips: string[] },
  pass: Pass,
): Promise<BenchResult[]> {
  const suffix = pass === "loaded" ? ".loaded" : "";
  const loadAtStart = loadavg()[0] ?? 0;

  // one 60 s file: ours = model load + transcribe inside a fresh child; cli = whole process wall time
  const ours: Run[] = [];
  const oursTranscribe: number[] = [];
  const oursRss: number[] = [];
  const nodeBase: number[] = [];
  const loads: number[] = [];
  const ref: Run[] = [];
  const oursLong = async () => {
    const child = new AddonChild();
    nodeBase.push((await child.request<{ rssMb: number }>({ op: "rss" })).rssMb);
    const load = await child.request<{ ms: number }>({ op: "load", model });
    loads.push(load.ms);
    const dec = await transcribeIn(child, audio.long);
    oursRss.push((await child.request<{ hwmMb: number }>({ op: "rss" })).hwmMb);
    child.close();
    // the model load counts as set-up, as whisper-cli's load time does
    const ms = load.ms + dec.ms;
    oursTranscribe.push(dec.ms);
    ours.push({
      ms,
      stages: ourStages(dec.timings, ms, load.ms + dec.timings.stateMs),
      others: dec.others,
      cores: dec.cpuMs / dec.ms,
    });
  };
  for (let r = 0; r < ROUNDS; r++) {
    log(`${pass}: 60 s file, round ${r + 1}/${ROUNDS}`);
    // ABBA: the order flips each round so a drift in the machine's load hits both sides alike
    if (r % 2 === 0) {
      await oursLong();
      ref.push(await runCli(cli, model, audio.long));
    } else {
      ref.push(await runCli(cli, model, audio.long));
      await oursLong();
    }
  }

  // 20 short files: our resident model vs one whisper-cli process per file, interleaved per clip
  log(`${pass}: ${CLIPS} clips of 5 s through a resident model vs whisper-cli per file`);
  const service = new AddonChild();
  await service.request({ op: "load", model });
  await service.request({ op: "transcribe", wav: audio.clips[0] }); // warm-up, like a service that has run before
  const oursClip: Run[] = [];
  const cliClip: Run[] = [];
  const oursOnce = async (clip: string) => {
    const reply = await transcribeIn(service, clip);
    oursClip.push({
      ms: reply.ms,
      stages: ourStages(reply.timings, reply.ms),
      others: reply.others,
      cores: reply.cpuMs / reply.ms,
    });
  };
  for (const [i, clip] of audio.clips.entries()) {
    if (i % 2 === 0) {
      await oursOnce(clip);
      cliClip.push(await runCli(cli, model, clip));
    } else {
      cliClip.push(await runCli(cli, model, clip));
      await oursOnce(clip);
    }
  }
  service.close();

  const cliRss = ref.map((x) => x.rssMb).filter((x): x is number => typeof x === "number");
  const ms = (runs: Run[]) => runs.map((x) => x.ms);
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} ms`;
  // the machine is shared: a 1-minute load average well above 0 means another tenant competed
  const loadNote = `load avg ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end`;
  const setup = `synthetic base, ${THREADS} threads, greedy, no fallback, no timestamps (220 tokens/window)`;
  const oursStages = medianStages(oursClip);
  const cliStagesMedian = medianStages(cliClip);
  const stageRows = STAGES.map((stage) =>
    result(
      `decode.clip_stage.${stage}${suffix}`,
      oursStages[stage],
      cliStagesMedian[stage],
      "ms",
      stage === "setup"
        ? "5 s clips, per-file median; ours: whisper state from the pool; cli: model load"
        : stage === "other"
          ? "ours: thread hand-off, JS, result; cli: process start/exit, state init, audio read, output"
          : "5 s clips, per-file median; whisper's own counters on both sides",
    ),
  );
  const longStages = medianStages(ours);
  const refLongStages = medianStages(ref);
  // pairs measured back to back where neither run had another tenant's work beside it
  const quietPairs = oursClip.flatMap((o, i) => {
    const c = cliClip[i];
    return c && o.others < QUIET_CORES && c.others < QUIET_CORES ? [[o, c] as const] : [];
  });
  const busyNote = (runs: Run[]) =>
    `other load ${median(runs.map((r) => r.others)).toFixed(2)} cores (median)`;
  const coresNote = (runs: Run[]) =>
    `ours used ${median(runs.map((r) => r.cores ?? Number.NaN)).toFixed(2)} cores (CPU/wall, median)`;
  const headline = [
    result(
      `decode.addon_vs_cli${suffix}`,
      median(ms(ours)),
      median(ms(ref)),
      "ms",
      `60 s speech; ours: loadModel (median ${median(loads).toFixed(0)} ms) + transcribe in a node child; ` +
        `cli: process wall time incl. load; ${setup}; median of ${ROUNDS}, ABBA; ` +
        `encode ${longStages.encode.toFixed(0)} vs ${refLongStages.encode.toFixed(0)} ms, ` +
        `decode ${longStages.decode.toFixed(0)} vs ${refLongStages.decode.toFixed(0)} ms; ` +
        `${coresNote(ours)}; ${busyNote([...ours, ...ref])}; ${loadNote}`,
    ),
    result(
      `decode.service_vs_cli_per_file${suffix}`,
      median(ms(oursClip)),
      median(ms(cliClip)),
      "ms",
      `${CLIPS} clips of 5 s; ours: resident model, transcribe only (${range(ms(oursClip))}); ` +
        `cli: one process per file (${range(ms(cliClip))}); per-file median, interleaved per clip (ABBA); ` +
        `${coresNote(oursClip)}; ${busyNote([...oursClip, ...cliClip])}; ` +
        `${quietPairs.length}/${CLIPS} pairs quiet; ${loadNote}`,
    ),
    ...stageRows,
  ];
  if (pass === "loaded") return headline;
  return [
    ...headline,
    result(
      "decode.service_vs_cli_per_file.quiet",
      quietPairs.length >= 3 ? median(quietPairs.map(([o]) => o.ms)) : Number.NaN,
      quietPairs.length >= 3 ? median(quietPairs.map(([, c]) => c.ms)) : null,
      "ms",
      `the same clips, only the ${quietPairs.length} pairs where other processes used < ${QUIET_CORES} cores ` +
        "during both runs (whisper-cli's OpenMP threads spin at barriers: beside other work a run can take several times as long)",
    ),
    result(
      "decode.peak_rss",
      median(oursRss),
      cliRss.length ? median(cliRss) : null,
      "MB",
      `60 s file; ours: VmHWM of the node child, including node + tsx (${median(nodeBase).toFixed(0)} MB ` +
        "before loading); cli: /usr/bin/time max RSS",
    ),
    result(
      "decode.rtf",
      median(oursTranscribe) / 60_000,
      null,
      "x",
      `ours, transcribe only / audio duration, 60 s file; cli wall RTF ${(median(ms(ref)) / 60_000).toFixed(3)}`,
    ),
  ];
}

if (process.argv.includes("--voxedge-decode-child")) await childMain();
