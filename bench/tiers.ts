/**
 * `tiers` bench group: the registry's `http` remote tier on the local stack with **zero nodes**
 * (wrangler dev whose MODEL_REGISTRY default is an http entry pointing at whisper.cpp's whisper-server,
 * built from the addon's own tree, synthetic `base` model, 2 threads), against the same whisper-server
 * called directly with the same multipart request on its OpenAI path.
 *
 * - `tiers.sync_vs_direct`: POST /v1/audio/transcriptions (verbose_json) through the tier (upload to R2,
 *   task, the request's own executor takes the lease, the Worker reads R2 and calls whisper-server,
 *   result stored, reply) against a direct POST to whisper-server, 20 each, interleaved ABBA, 1 client.
 * - `tiers.file_job`: POST /transcribe/upload → polled until done (the Queue consumer's executor).
 */
import { loadavg } from "node:os";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { startWhisperServer } from "../test/helpers/whisper-server.ts";
import { median, percentile } from "./stats.ts";
import { clipForm, prepareClip } from "./sync-clip.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const THREADS = 2;
const SEQUENTIAL = 20;
const FILE_JOBS = 5;
const log = (msg: string) => process.stderr.write(`tiers: ${msg}\n`);

async function timedPost(url: string, body: FormData, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { method: "POST", body, headers });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`HTTP ${response.status} from ${url}: ${text.slice(0, 300)}`);
  return ms;
}

export const tiers: BenchGroup = async (): Promise<BenchResult[]> => {
  const [model, wav] = await Promise.all([
    ensureSyntheticModel("base"),
    prepareClip("tiers-clip-5s.wav", "A remote recognition tier answers while the caller waits for it."),
  ]);
  const loadAtStart = loadavg()[0] ?? 0;
  log("starting whisper-server and wrangler dev (registry default: http → whisper-server, no node)");
  const whisper = await startWhisperServer(model, THREADS);
  const registry = {
    default_model: "remote-whisper",
    models: [
      {
        id: "remote-whisper",
        label: "whisper-server",
        kind: "http",
        endpoint: whisper.transcriptionsUrl,
        supports_timestamps: true,
      },
    ],
  };
  const worker = await LocalPlatform.start({ vars: { MODEL_REGISTRY: JSON.stringify(registry) } });
  const auth = { authorization: `Bearer ${worker.key}` };
  const fields = { model: "whisper-1", response_format: "verbose_json", language: "en" };
  const viaTier = () => timedPost(`${worker.url}/v1/audio/transcriptions`, clipForm(wav, fields), auth);
  const direct = () => timedPost(whisper.transcriptionsUrl, clipForm(wav, fields));
  try {
    await viaTier(); // warm-up: R2, D1, Durable Objects, the model's first decode
    await direct();
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      if (i % 2 === 0) {
        ours.push(await viaTier());
        theirs.push(await direct());
      } else {
        theirs.push(await direct());
        ours.push(await viaTier());
      }
      if ((i + 1) % 5 === 0) log(`sequential ${i + 1}/${SEQUENTIAL}`);
    }
    const jobs: number[] = [];
    for (let i = 0; i < FILE_JOBS; i++) {
      const started = performance.now();
      const accepted = await fetch(`${worker.url}/transcribe/upload`, {
        method: "POST",
        headers: auth,
        body: clipForm(wav, { language: "en" }),
      });
      const { task_id } = (await accepted.json()) as { task_id: string };
      for (;;) {
        const poll = (await (
          await fetch(`${worker.url}/transcribe/${task_id}`, { headers: auth })
        ).json()) as {
          status: string;
          error?: string;
        };
        if (poll.status === "done") break;
        if (poll.status === "failed") throw new Error(`file job failed: ${poll.error}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      jobs.push(performance.now() - started);
    }
    const setup =
      `5 s clip, synthetic base, whisper-server ${THREADS} threads, zero nodes; ` +
      `load avg ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end (shared machine)`;
    return [
      result(
        "tiers.sync_vs_direct",
        percentile(ours, 50),
        percentile(theirs, 50),
        "ms",
        `p50 of ${SEQUENTIAL} sequential, interleaved, 1 client; ours: /v1/audio/transcriptions through the http ` +
          `tier (upload to R2, task, lease, R2 read, remote call, stores, reply); theirs: the same request straight to ` +
          `whisper-server's OpenAI path; ${setup}; target ratio <= 1.05`,
      ),
      result(
        "tiers.sync_vs_direct.p95",
        percentile(ours, 95),
        percentile(theirs, 95),
        "ms",
        "p95 of the same requests",
      ),
      result(
        "tiers.file_job",
        median(jobs),
        median(theirs),
        "ms",
        `median of ${FILE_JOBS} file jobs, POST /transcribe/upload → polled (100 ms) until done, through the ` +
          `Queue consumer's executor; reference: the direct whisper-server call's p50; ${setup}`,
      ),
    ];
  } finally {
    await worker.stop();
    await whisper.stop();
  }
};
