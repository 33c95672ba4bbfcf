/**
 * `decode` bench group: our addon against whisper.cpp's own whisper-cli built from the same tree,
 * same synthetic `base` model, same audio, 2 threads, decode length bounded the same way on both
 * sides (greedy, no temperature fallback, no timestamps: 220 tokens per 30 s window).
 * Ours runs in a child process so the harness's own memory does not count. Runs are interleaved
 * (ours, cli, ours, cli...) because the machine is shared; figures are medians.
 */
import { type ChildProcess, execFile, fork, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { parseWav, speechWav } from "../test/native/audio.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = path.join(ROOT, "bench", ".cache");
const WHISPER_DIR =
  process.env.WHISPER_CPP_DIR ?? path.join(ROOT, "node_modules", "nodejs-whisper", "cpp", "whisper.cpp");
const THREADS = 2;
const ROUNDS = 3;
const CLIPS = 20;
/** The addon's equivalent of `whisper-cli -nf -bs 1 -nt -t 2 -l en`. */
const OURS_OPTS = { language: "en", beamSize: 1, temperatureInc: 0, timestamps: false, threads: THREADS };
const CLI_FLAGS = ["-nf", "-bs", "1", "-nt", "-t", String(THREADS), "-l", "en", "-np"];
const log = (msg: string) => process.stderr.write(`decode: ${msg}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

/** whisper-cli from the addon's source tree and portability flags, built once into bench/.cache. */
async function buildCli(): Promise<string> {
  const dir = path.join(CACHE, "whisper-cli-build");
  const bin = path.join(dir, "bin", "whisper-cli");
  const flags = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DWHISPER_BUILD_TESTS=OFF",
    "-DWHISPER_BUILD_SERVER=OFF",
    "-DGGML_NATIVE=OFF",
    ...["SSE42", "AVX", "AVX2", "BMI2", "FMA", "F16C"].map((f) => `-DGGML_${f}=ON`),
  ];
  const key = JSON.stringify({ WHISPER_DIR, flags });
  const keyFile = path.join(dir, "voxedge-key.json");
  if (existsSync(bin) && (await readFile(keyFile, "utf8").catch(() => "")) === key) return bin;
  log(`building whisper-cli in ${path.relative(ROOT, dir)} (several minutes on 2 cores)`);
  const ninja = spawnSync("ninja", ["--version"]).status === 0 ? ["-G", "Ninja"] : [];
  const steps = [
    ["-S", WHISPER_DIR, "-B", dir, ...ninja, ...flags],
    ["--build", dir, "--target", "whisper-cli", "-j", String(availableParallelism())],
  ];
  for (const args of steps) {
    const res = spawnSync("cmake", args, { stdio: ["ignore", "ignore", "inherit"] });
    if (res.status !== 0) throw new Error(`cmake ${args[0]} failed for whisper-cli`);
  }
  await writeFile(keyFile, key);
  return bin;
}

/** ~60 s of speech and 20 distinct ~5 s clips, 16 kHz mono WAV (espeak-ng + ffmpeg), cached. */
async function prepareAudio(): Promise<{ long: string; clips: string[] }> {
  const dir = path.join(CACHE, "audio");
  await mkdir(dir, { recursive: true });
  const padTo = async (src: string, out: string, seconds: number, loop: boolean) => {
    if (existsSync(out)) return out;
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
  const paragraph = await speechWav(
    "Edge inference keeps audio close to the people who speak it. Each node pulls work from a queue, " +
      "decodes it with a resident model and reports segments as they are ready.",
  );
  const long = await padTo(paragraph, path.join(dir, "speech-60s.wav"), 60, true);
  const clips: string[] = [];
  for (let i = 0; i < CLIPS; i++) {
    const wav = await speechWav(
      `Clip number ${i + 1}. The meeting moved to room ${100 + i * 7} at ${i + 1} pm.`,
    );
    clips.push(await padTo(wav, path.join(dir, `clip-${i}.wav`), 5, false));
  }
  return { long, clips };
}

interface CliRun {
  ms: number;
  rssMb: number | null;
}

async function runCli(bin: string, model: string, wav: string): Promise<CliRun> {
  const timeBin = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
  const [cmd, args] = timeBin
    ? [timeBin, ["-v", bin, "-m", model, "-f", wav, ...CLI_FLAGS]]
    : [bin, ["-m", model, "-f", wav, ...CLI_FLAGS]];
  const started = performance.now();
  const { stderr } = await run(cmd, args as string[], { maxBuffer: 16 << 20 });
  const ms = performance.now() - started;
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1];
  return { ms, rssMb: kb ? Number(kb) / 1024 : null };
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
        const pcm = parseWav(await readFile(msg.wav ?? "")).samples;
        const started = performance.now();
        await model?.transcribe(pcm, OURS_OPTS);
        process.send?.({ ms: performance.now() - started, audioSec: pcm.length / 16000 });
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

export const decode: BenchGroup = async (): Promise<BenchResult[]> => {
  const [cli, model, audio] = await Promise.all([buildCli(), ensureSyntheticModel("base"), prepareAudio()]);
  await runCli(cli, model, audio.clips[0] ?? ""); // warm the page cache and check the binary

  // one 60 s file: ours = model load + transcribe inside a fresh child; cli = whole process wall time
  const ours: number[] = [];
  const oursDecode: number[] = [];
  const oursRss: number[] = [];
  const nodeBase: number[] = [];
  const loads: number[] = [];
  const ref: CliRun[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    log(`60 s file, round ${r + 1}/${ROUNDS}`);
    const child = new AddonChild();
    nodeBase.push((await child.request<{ rssMb: number }>({ op: "rss" })).rssMb);
    const load = await child.request<{ ms: number }>({ op: "load", model });
    loads.push(load.ms);
    const dec = await child.request<{ ms: number }>({ op: "transcribe", wav: audio.long });
    oursRss.push((await child.request<{ hwmMb: number }>({ op: "rss" })).hwmMb);
    child.close();
    ours.push(load.ms + dec.ms);
    oursDecode.push(dec.ms);
    ref.push(await runCli(cli, model, audio.long));
  }

  // 20 short files: our resident model vs one whisper-cli process per file, interleaved per clip
  log(`${CLIPS} clips of 5 s through a resident model vs whisper-cli per file`);
  const service = new AddonChild();
  await service.request({ op: "load", model });
  await service.request({ op: "transcribe", wav: audio.clips[0] }); // warm-up, like a service that has run before
  const oursClip: number[] = [];
  const cliClip: number[] = [];
  for (const clip of audio.clips) {
    oursClip.push((await service.request<{ ms: number }>({ op: "transcribe", wav: clip })).ms);
    cliClip.push((await runCli(cli, model, clip)).ms);
  }
  service.close();

  const cliRss = ref.map((x) => x.rssMb).filter((x): x is number => x !== null);
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} ms`;
  // the machine is shared: a 1-minute load average well above 0 means another tenant competed
  const loadNote = `load avg ${loadavg()[0]?.toFixed(1)} at the end`;
  const setup = `synthetic base, ${THREADS} threads, greedy, no fallback, no timestamps (220 tokens/window)`;
  return [
    result(
      "decode.addon_vs_cli",
      median(ours),
      median(ref.map((x) => x.ms)),
      "ms",
      `60 s speech; ours: loadModel (median ${median(loads).toFixed(0)} ms) + transcribe in a node child; ` +
        `cli: process wall time incl. load; ${setup}; median of ${ROUNDS}, ABAB; ${loadNote}`,
    ),
    result(
      "decode.service_vs_cli_per_file",
      median(oursClip),
      median(cliClip),
      "ms",
      `${CLIPS} clips of 5 s; ours: resident model, transcribe only (${range(oursClip)}); ` +
        `cli: one process per file (${range(cliClip)}); per-file median, interleaved per clip; ${loadNote}`,
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
      median(oursDecode) / 60_000,
      null,
      "x",
      `ours, transcribe only / audio duration, 60 s file; cli wall RTF ${(median(ref.map((x) => x.ms)) / 60_000).toFixed(3)}`,
    ),
  ];
};

if (process.argv.includes("--voxedge-decode-child")) await childMain();
