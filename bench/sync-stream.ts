/**
 * `sync_stream` bench group: what stream=true on POST /v1/audio/transcriptions buys on a 60 s file,
 * through the local stack (wrangler dev + one inference node, synthetic `base` model, diarization
 * off; the node reports each decoded window as it goes). One streaming request and one plain JSON request on the same
 * warm stack, interleaved (stream, json, json, stream), each timed from the request's start: the
 * stream's first `transcript.text.delta` and its `transcript.text.done`, the JSON call's whole answer.
 * Target: first delta ≤ 40% of the whole response. The node's own time on each task (its total_ms) is
 * logged beside each answer: on a shared machine the decode time drifts between requests far more than
 * the stream costs.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { speechWav } from "../test/native/audio.ts";
import { median } from "./stats.ts";
import { clipForm } from "./sync-clip.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const CLIP_SEC = 60;
const ROUNDS = 2;
const AUDIO_CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), ".cache", "audio");
const log = (msg: string) => process.stderr.write(`sync_stream: ${msg}\n`);

/** A 60 s 16 kHz mono WAV: one spoken paragraph looped (speech throughout, so the VAD skips nothing). */
async function longClip(): Promise<Buffer> {
  await mkdir(AUDIO_CACHE, { recursive: true });
  const out = path.join(AUDIO_CACHE, `sync-stream-${CLIP_SEC}s.wav`);
  if (!existsSync(out)) {
    const speech = await speechWav(
      "The synchronous endpoint streams its transcript while the node decodes the file, window by window.",
    );
    const args = ["-v", "error", "-y", "-stream_loop", "-1", "-i", speech, "-t", String(CLIP_SEC)];
    const res = spawnSync("ffmpeg", [...args, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", out]);
    if (res.status !== 0) throw new Error("ffmpeg failed to make the 60 s clip");
  }
  return readFile(out);
}

/** Reads a stream=true answer: ms from `started` to the first delta and to `done`. */
async function readEvents(
  response: Response,
  started: number,
): Promise<{ firstDeltaMs: number; doneMs: number }> {
  if (!response.ok || !response.body)
    throw new Error(`stream: HTTP ${response.status} ${await response.text()}`);
  let firstDeltaMs = Number.NaN;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (event.startsWith("event: error")) throw new Error(`stream ended with ${event}`);
      const type = (JSON.parse(event.replace(/^data: /, "")) as { type: string }).type;
      if (type === "transcript.text.delta" && Number.isNaN(firstDeltaMs))
        firstDeltaMs = performance.now() - started;
      if (type === "transcript.text.done") return { firstDeltaMs, doneMs: performance.now() - started };
    }
  }
  throw new Error("the stream ended without transcript.text.done");
}

export const syncStream: BenchGroup = async (): Promise<BenchResult[]> => {
  const wav = await longClip();
  log("starting wrangler dev + inference node");
  const platform = await LocalPlatform.start({ keys: 1, nodeEnv: {} });
  try {
    await platform.startNode({
      model: "base",
      // the sync group's bounded decode: greedy, no temperature fallback, whisper's own length cap
      env: {
        VOXEDGE_THREADS: "2",
        VOXEDGE_CONCURRENCY: "1",
        VOXEDGE_DIARIZE: "0",
        VOXEDGE_TEMPERATURE_INC: "0",
        VOXEDGE_MAX_TOKENS: "0",
      },
    });
    const send = (stream: boolean) =>
      fetch(`${platform.url}/v1/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${platform.keys[0]}` },
        body: clipForm(wav, {
          model: "whisper-1",
          language: "en",
          response_format: "json",
          stream: String(stream),
        }),
      });
    /** The node's own time on a task (its result's total_ms), so a slow answer can be told from a slow decode. */
    const nodeMs = async (response: Response) => {
      const task = response.headers.get("x-voxedge-task-id");
      const polled = await fetch(`${platform.url}/transcribe/${task}`, {
        headers: { authorization: `Bearer ${platform.keys[0]}` },
      });
      return ((await polled.json()) as { result?: { total_ms: number } }).result?.total_ms ?? Number.NaN;
    };
    const json = async () => {
      const started = performance.now();
      const response = await send(false);
      if (!response.ok) throw new Error(`json: HTTP ${response.status} ${await response.text()}`);
      await response.text();
      const ms = performance.now() - started;
      log(`json ${ms.toFixed(0)} ms (node ${(await nodeMs(response)).toFixed(0)} ms)`);
      return ms;
    };
    const streamed = async () => {
      const started = performance.now();
      const response = await send(true);
      const times = await readEvents(response, started);
      log(`stream done ${times.doneMs.toFixed(0)} ms (node ${(await nodeMs(response)).toFixed(0)} ms)`);
      return times;
    };
    log("warm-up");
    await json();
    const firsts: number[] = [];
    const dones: number[] = [];
    const wholes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runStream = async () => {
        const { firstDeltaMs, doneMs } = await streamed();
        firsts.push(firstDeltaMs);
        dones.push(doneMs);
      };
      if (round % 2 === 0) {
        await runStream();
        wholes.push(await json());
      } else {
        wholes.push(await json());
        await runStream();
      }
      log(
        `round ${round + 1}/${ROUNDS}: first delta ${firsts.at(-1)?.toFixed(0)} ms, done ${dones.at(-1)?.toFixed(0)} ms, json ${wholes.at(-1)?.toFixed(0)} ms`,
      );
    }
    const setup = `${CLIP_SEC} s clip, synthetic base, 2 threads, median of ${ROUNDS}`;
    return [
      result(
        "sync_stream.first_delta_vs_whole",
        median(firsts),
        median(wholes),
        "ms",
        `stream=true: request start → first transcript.text.delta; reference: the same file as one JSON answer; ${setup}; target ratio <= 0.4`,
      ),
      result(
        "sync_stream.first_delta_vs_own_done",
        median(firsts),
        median(dones),
        "ms",
        "the same: first delta against the same stream's done (immune to the load drifting between requests); " +
          "a streamed 60 s file is a 10 s first window then 30 s ones, so the first text comes after about a sixth of the audio is decoded",
      ),
      result(
        "sync_stream.done_vs_whole",
        median(dones),
        median(wholes),
        "ms",
        `stream=true: request start → transcript.text.done, against the JSON answer; ${setup}`,
      ),
    ];
  } finally {
    await platform.stop();
  }
};
