/**
 * Group `live`: live-microphone latency through the whole local platform. wrangler dev runs the Worker
 * and the live Durable Objects; the streaming engine runs in this process (the same code a node runs,
 * so its decode costs can be read) on the synthetic `base` model with 2 threads. A `ws` client streams
 * espeak-ng speech at real time in 100 ms frames: six phrases of separately synthesised words (so
 * every word's window is known exactly) with 1.5 s pauses.
 *
 * - interim latency: from the moment the frame holding a word's last sample was sent to the first
 *   interim whose window [start, end] covers the word;
 * - final latency: from the frame holding the end of a phrase to the final covering it (this includes
 *   the 600 ms endpointing pause, as a user experiences it);
 * - decode RTF: decode time / audio time of the buffer decoded (rolling utterance), per decode.
 *
 * References are the anchors of the research notes (shared/research/rt-content-anchors.md): ~1-2 s
 * final latency for streaming Whisper set-ups, Whisper-Streaming's 3.3 s for LocalAgreement-2
 * confirmed text (what our interims are), and RTF 1 as the real-time limit.
 */
import type { SpeechEngine } from "../inference-node/live/live-speech.ts";
import { DEFAULT_LIVE_OPTIONS } from "../inference-node/live/options.ts";
import { startLiveService } from "../inference-node/live/service.ts";
import type { DecodeStat } from "../inference-node/live/transcriber.ts";
import { logger } from "../inference-node/logger.ts";
import type { Translator } from "../inference-node/translate/translator.ts";
import { SileroVad } from "../inference-node/vad/silero.ts";
import { loadModel } from "../native/index.ts";
import { ensureSyntheticModel } from "../native/model/synthetic.ts";
import { type LiveClient, openLive } from "../test/e2e/live-client.ts";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { speechPcm } from "../test/native/audio.ts";
import { percentile } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const SR = 16_000;
const FRAME_MS = 100;
const WORD_GAP_MS = 60;
const PAUSE_MS = 1_500;
const PHRASES = [
  "hello from the edge",
  "live speech turns into text",
  "the quick brown fox jumps over the lazy dog",
  "one session at a time",
  "interims settle while you speak",
  "finals arrive after a short pause",
];
const log = (msg: string) => process.stderr.write(`live: ${msg}\n`);

/** A word's or a phrase's place in the stream, in seconds. */
export interface Window {
  start: number;
  end: number;
}

/** A result as a client received it: its window in stream seconds, and its arrival time. */
export interface Timed {
  start: number;
  end: number;
  /** performance.now() at arrival. */
  at: number;
}

/** The benchmark's speech: the audio, and the windows of its words and phrases. */
export interface SpeechStream {
  audio: Float32Array;
  words: Window[];
  phrases: Window[];
}

/** One espeak-ng word without its leading and trailing silence. */
async function word(text: string): Promise<Float32Array> {
  const pcm = await speechPcm(text);
  let a = 0;
  let b = pcm.length;
  while (a < b && Math.abs(pcm[a] ?? 0) < 0.01) a++;
  while (b > a && Math.abs(pcm[b - 1] ?? 0) < 0.01) b--;
  return pcm.slice(a, b);
}

/** The stream, and the windows (seconds) of every word and every phrase in it. */
export async function buildStream(): Promise<SpeechStream> {
  const parts: Float32Array[] = [new Float32Array((PAUSE_MS * SR) / 1000)];
  let at = parts[0]?.length ?? 0;
  const words: Window[] = [];
  const phrases: Window[] = [];
  for (const phrase of PHRASES) {
    const start = at / SR;
    for (const text of phrase.split(" ")) {
      const pcm = await word(text);
      words.push({ start: at / SR, end: (at + pcm.length) / SR });
      parts.push(pcm, new Float32Array((WORD_GAP_MS * SR) / 1000));
      at += pcm.length + (WORD_GAP_MS * SR) / 1000;
    }
    phrases.push({ start, end: words.at(-1)?.end ?? start });
    parts.push(new Float32Array((PAUSE_MS * SR) / 1000));
    at += (PAUSE_MS * SR) / 1000;
  }
  const audio = new Float32Array(at);
  let offset = 0;
  for (const part of parts) {
    audio.set(part, offset);
    offset += part.length;
  }
  return { audio, words, phrases };
}

/** Wall time at which the frame holding session time `t` (seconds) was sent. */
const sentTime = (sentAt: number[], t: number) =>
  sentAt[Math.min(sentAt.length - 1, Math.floor((t * 1000) / FRAME_MS))] ?? Number.NaN;

/**
 * Interim latency per word: from the frame holding the word's last sample to the first interim whose
 * window covers the word. `offset` (seconds) is where the results' clock starts in the stream (0 for
 * /ws; a room's engine stream starts at the speaker's first loud frame, less its pre-roll).
 */
export function interimLatencies(
  interims: readonly Timed[],
  words: readonly Window[],
  sentAt: number[],
  offset = 0,
) {
  return words.flatMap((w) => {
    const first = interims.find((r) => r.start + offset <= w.start + 0.05 && r.end + offset >= w.end);
    return first ? [first.at - sentTime(sentAt, w.end)] : [];
  });
}

/** Final latency per phrase: from the frame holding the phrase's end to the final covering it. */
export function finalLatencies(
  finals: readonly Timed[],
  phrases: readonly Window[],
  sentAt: number[],
  offset = 0,
) {
  return phrases.flatMap((p) => {
    const final = finals.find((r) => r.end + offset >= p.end - 0.1 && r.start + offset <= p.end);
    return final ? [final.at - sentTime(sentAt, p.end)] : [];
  });
}

/** Opens /ws and waits for `ready`, retrying while the engine has not registered (refused with 1013). */
export async function openReadyWs(url: string, key: string): Promise<LiveClient> {
  const headers = { authorization: `Bearer ${key}` };
  for (let i = 0; i < 100; i++) {
    const client = await openLive(`${url}/ws?language=en`, headers);
    if (typeof client === "number") throw new Error(`/ws answered ${client}`);
    try {
      await client.waitFor("ready", 3_000);
      return client;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error("no live engine registered");
}

/** Streams `speech` through /ws at real time; the final and interim latencies of that run. */
export async function measureWs(url: string, key: string, speech: SpeechStream) {
  const client = await openReadyWs(url, key);
  const sentAt = await client.stream(speech.audio, 1, FRAME_MS);
  client.sendJson({ type: "end" });
  await client.closeWithin(30_000);
  const timed = (type: "interim" | "final") =>
    client.received.flatMap((r) =>
      r.message.type === type ? [{ start: r.message.start, end: r.message.end, at: r.at }] : [],
    );
  return {
    interims: interimLatencies(timed("interim"), speech.words, sentAt),
    finals: finalLatencies(timed("final"), speech.phrases, sentAt),
    counts: {
      interims: timed("interim").length,
      finals: timed("final").length,
      errors: client.received.filter((r) => r.message.type === "error").length,
    },
  };
}

/**
 * The local platform for live benches: wrangler dev, and a streaming engine in this process (synthetic
 * base model, 2 threads) so its decode costs can be read.
 */
export async function startBenchPlatform(
  options: {
    translator?: Translator | null;
    /** Speaks rooms' finals (spoken translations); absent: none (tts_unavailable). */
    speech?: SpeechEngine | null;
    capacity?: number;
    users?: number;
    /** Worker vars beside the bench's own (a room's size, say). */
    vars?: Record<string, string>;
  } = {},
) {
  const modelPath = await ensureSyntheticModel("base");
  const stack = await LocalPlatform.start({
    allowlist: [],
    vars: { LEASE_TTL_SEC: "60", ...options.vars },
    keys: 1 + (options.users ?? 0),
  });
  const model = await loadModel(modelPath, { threads: 2 });
  const decodes: DecodeStat[] = [];
  const service = startLiveService({
    workerUrl: stack.url,
    token: stack.token,
    nodeId: "bench-live",
    modelId: "synthetic-base",
    model,
    options: { ...DEFAULT_LIVE_OPTIONS, capacity: options.capacity ?? DEFAULT_LIVE_OPTIONS.capacity },
    vad: await SileroVad.load(),
    translator: options.translator ?? null,
    speech: options.speech ?? null,
    logger: logger.child({}, { level: "warn" }),
    onDecode: (stat) => decodes.push(stat),
  });
  const stop = async () => {
    await service.stop();
    await model.dispose();
    await stack.stop();
  };
  return { stack, decodes, model, stop };
}

export const live: BenchGroup = async () => {
  const { audio, words, phrases } = await buildStream();
  const { stack, decodes, stop } = await startBenchPlatform();
  try {
    log(`streaming ${(audio.length / SR).toFixed(1)} s of speech at real time`);
    const run = await measureWs(stack.url, stack.key, { audio, words, phrases });
    const interimLatency = run.interims;
    const finalLatency = run.finals;
    // a final is decoded at the pause (tentative) or at the end of the utterance
    const rtf = (kind: "interim" | "final") =>
      decodes
        .filter((d) => (kind === "interim" ? d.kind === "interim" : d.kind !== "interim"))
        .map((d) => d.decodeMs / 1000 / d.audioSec);
    const counts = `${run.counts.interims} interims, ${run.counts.finals} finals, ${run.counts.errors} errors`;
    const out: BenchResult[] = [
      result(
        "live interim latency p50",
        percentile(interimLatency, 50),
        3300,
        "ms",
        `word end -> first interim covering it; ${interimLatency.length}/${words.length} words covered; ref: Whisper-Streaming LA-2 3.3 s`,
      ),
      result("live interim latency p95", percentile(interimLatency, 95), 3300, "ms", counts),
      result(
        "live final latency p50",
        percentile(finalLatency, 50),
        2000,
        "ms",
        `end of speech -> final (incl. the ${DEFAULT_LIVE_OPTIONS.vadSilenceMs} ms VAD endpointing); ${finalLatency.length}/${phrases.length} phrases; ref: ~1-2 s anchor`,
      ),
      result(
        "live final latency p95",
        percentile(finalLatency, 95),
        2000,
        "ms",
        "ref: upper end of the ~1-2 s anchor",
      ),
      result(
        "live interim decode RTF p50",
        percentile(rtf("interim"), 50),
        1,
        "x",
        `decode time / audio of the rolling buffer, ${rtf("interim").length} decodes; ref: real time`,
      ),
      result("live interim decode RTF p95", percentile(rtf("interim"), 95), 1, "x", "ref: real time"),
      result(
        "live final decode RTF p50",
        percentile(rtf("final"), 50),
        1,
        "x",
        `${rtf("final").length} decodes`,
      ),
      result("live final decode RTF p95", percentile(rtf("final"), 95), 1, "x", "ref: real time"),
    ];
    return out;
  } finally {
    await stop();
  }
};
