/**
 * The `rooms` group's lecture hall: one speaker and 100 listeners in 8 languages (listeners as
 * WebSocket clients that join with `role=listener`), against a two-person room in the same run,
 * alternating. Translation goes through a LibreTranslate-compatible server started here that answers
 * at once, so the figures are the platform's overhead, not a model's:
 *
 * - end of speech -> each listener's translated final, p50/p95, hall vs two-person room (target 1.2x);
 * - translations made per final: the server's /translate calls per speaker final (target: the number
 *   of distinct listener languages, not of listeners);
 * - spoken translations (#31.3): SPEAKING listeners (3 per language) join with `speak=true`; end of
 *   speech -> the arrival of each one's `translation_audio` (when its client can start playing it),
 *   p50/p95, against the hall's translated finals of the same run; and the node's syntheses per
 *   final (real espeak-ng, counted at the engine: target one per language, not per listener);
 * - workerd's CPU per speaker final, hall vs two-person room (locally the room object shares the
 *   process with the Worker and the live hub, so this bounds the room's cost from above).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { frameLevelDb, VOICE_DB } from "../durable-objects/rooms/room-protocol.ts";
import { EspeakSpeech, type SpeechEngine } from "../inference-node/live/live-speech.ts";
import { float32ToPcm16 } from "../inference-node/live/pcm.ts";
import { createTranslator } from "../inference-node/translate/config.ts";
import { RoomServerMessage } from "../protocol/rooms.ts";
import { type LiveClient, openLive } from "../test/e2e/live-client.ts";
import type { LocalPlatform } from "../test/helpers/local-platform.ts";
import { finalLatencies, type SpeechStream, startBenchPlatform, type Timed } from "./live.ts";
import { cpuMs, descendants } from "./proc.ts";
import { percentile } from "./stats.ts";
import { type BenchResult, result } from "./types.ts";

const LISTENERS = 100;
const LANGUAGES = ["es", "fr", "de", "vi", "ja", "pt", "it", "ko"] as const;
const ROUNDS = 2;
/** Listeners with spoken translations on: the first ones, 3 per language. */
const SPEAKING = 3 * LANGUAGES.length;
const FRAME_MS = 100;
/** Frames of quiet audio a room keeps before a speaker's first loud frame (durable-objects/rooms/stream-book.ts). */
const PREROLL_FRAMES = 3;
const log = (msg: string) => process.stderr.write(`rooms hall: ${msg}\n`);

type RoomClient = LiveClient<RoomServerMessage>;

/**
 * Where a room's engine stream starts in the speaker's audio (seconds): the room opens it at the first
 * frame over its voice gate, with the quiet frames just before it as pre-roll; results are timed from there.
 */
export function roomStreamOffset(audio: Float32Array): number {
  const pcm = float32ToPcm16(audio);
  const frameBytes = (16_000 * 2 * FRAME_MS) / 1000;
  for (let i = 0; i * frameBytes < pcm.length; i++) {
    const frame = pcm.slice(i * frameBytes, (i + 1) * frameBytes).buffer;
    if (frameLevelDb(frame) > VOICE_DB) return (Math.max(0, i - PREROLL_FRAMES) * FRAME_MS) / 1000;
  }
  return 0;
}

/** A LibreTranslate-compatible server that answers at once and counts its translations. */
async function instantLibreTranslate(): Promise<{
  url: string;
  calls: () => number;
  stop: () => Promise<void>;
}> {
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "GET" && req.url === "/languages") {
        const all = ["en", ...LANGUAGES];
        res.end(
          JSON.stringify(all.map((code) => ({ code, name: code, targets: all.filter((t) => t !== code) }))),
        );
        return;
      }
      if (req.method === "POST" && req.url === "/translate") {
        calls++;
        const { q, target } = JSON.parse(body || "{}") as { q?: string; target?: string };
        res.end(JSON.stringify({ translatedText: `[${target}] ${q ?? ""}` }));
        return;
      }
      res.statusCode = 404;
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function join(stack: LocalPlatform, id: string, query: string): Promise<RoomClient> {
  const client = await openLive(`${stack.url}/api/v1/ws/${id}?${query}`, {}, (json) =>
    RoomServerMessage.parse(json),
  );
  if (typeof client === "number") throw new Error(`room answered ${client}`);
  await client.waitFor("partner_language");
  return client;
}

async function createRoom(stack: LocalPlatform): Promise<string> {
  const response = await fetch(`${stack.url}/api/v1/session/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/json" },
    body: JSON.stringify({ language: "en", translate_language: "es" }),
  });
  return ((await response.json()) as { conversation_id: string }).conversation_id;
}

/** espeak-ng, counting its syntheses (one per language per final is the target). */
function countingEspeak(): { engine: SpeechEngine; count: () => number } {
  const espeak = new EspeakSpeech();
  let count = 0;
  return {
    engine: {
      engine: espeak.engine,
      speak: (text, language, signal) => {
        count++;
        return espeak.speak(text, language, signal);
      },
    },
    count: () => count,
  };
}

/**
 * A listener's spoken translations as timed results: each `translation_audio`, at its arrival, with
 * the times of the final it speaks (the last final before it whose translation is its text).
 */
function spokenTimes(listener: RoomClient): Timed[] {
  const finals: { text: string; start: number; end: number }[] = [];
  return listener.received.flatMap((r) => {
    const m = r.message;
    if (m.type === "transcript" && !m.is_interim)
      finals.push({ text: m.translation, start: m.start, end: m.end });
    if (m.type !== "translation_audio") return [];
    const spoken = finals.findLast((f) => f.text === m.text);
    return spoken ? [{ start: spoken.start, end: spoken.end, at: r.at }] : [];
  });
}

interface HallRun {
  finals: number[];
  /** workerd's CPU (ms) from the first audio frame to the last final's arrival. */
  workerCpuMs: number;
  /** End of speech -> a speaking listener's translation_audio. */
  spoken: number[];
  /** tts_failed / tts_unavailable errors the speaking listeners got. */
  speechErrors: number;
  speakerFinals: number;
  translations: number;
  listeners: number;
}

/** One room: a speaker and `listeners` listeners cycling over LANGUAGES; the speech streamed once. */
async function runRoom(
  stack: LocalPlatform,
  speech: SpeechStream,
  listeners: number,
  calls: () => number,
  workerCpu: () => number,
): Promise<HallRun> {
  const id = await createRoom(stack);
  const speaker = await join(stack, id, "language=en&role=speaker&name=Speaker");
  const audience: RoomClient[] = [];
  for (let i = 0; i < listeners; i += 10) {
    const batch = Array.from({ length: Math.min(10, listeners - i) }, (_, j) => {
      const language = LANGUAGES[(i + j) % LANGUAGES.length] ?? "es";
      const speak = i + j < SPEAKING ? "&speak=true" : "";
      return join(stack, id, `language=${language}&role=listener&name=L${i + j}${speak}`);
    });
    audience.push(...(await Promise.all(batch)));
  }
  const before = calls();
  const cpuBefore = workerCpu();
  const sentAt = await speaker.stream(speech.audio, 1, FRAME_MS);
  const lastPhrase = speech.phrases.at(-1)?.end ?? 0;
  const offset = roomStreamOffset(speech.audio);
  await Promise.all(
    audience.map((listener) =>
      listener
        .waitUntil(
          (m) => m.type === "transcript" && !m.is_interim && m.end + offset >= lastPhrase - 0.1,
          "the last final",
          20_000,
        )
        .catch(() => undefined),
    ),
  );
  // the last final's speech follows it; waiting for it on the speaking listeners
  await Promise.all(
    audience
      .slice(0, SPEAKING)
      .map((listener) =>
        listener
          .waitUntil(
            (m) =>
              m.type === "translation_audio" &&
              spokenTimes(listener).some((t) => t.end + offset >= lastPhrase - 0.1),
            "the last final's speech",
            10_000,
          )
          .catch(() => undefined),
      ),
  );
  const workerCpuMs = workerCpu() - cpuBefore;
  const finals: number[] = [];
  for (const listener of audience) {
    const timed: Timed[] = listener.received.flatMap((r) =>
      r.message.type === "transcript" && !r.message.is_interim
        ? [{ start: r.message.start, end: r.message.end, at: r.at }]
        : [],
    );
    finals.push(...finalLatencies(timed, speech.phrases, sentAt, offset));
  }
  const spoken = audience
    .slice(0, SPEAKING)
    .flatMap((listener) => finalLatencies(spokenTimes(listener), speech.phrases, sentAt, offset));
  const speakerFinals = speaker.received.filter(
    (r) => r.message.type === "transcript" && !r.message.is_interim,
  ).length;
  const translations = calls() - before;
  for (const client of [speaker, ...audience]) client.ws.close(1000, "bench over");
  const ttsErrors = audience
    .slice(0, SPEAKING)
    .flatMap((l) => l.received.map((r) => r.message))
    .flatMap((m) => (m.type === "error" && m.code.startsWith("tts_") ? [`${m.code}: ${m.message}`] : []));
  const speechErrors = ttsErrors.length;
  const tally = new Map<string, number>();
  for (const why of ttsErrors) tally.set(why, (tally.get(why) ?? 0) + 1);
  for (const [why, n] of tally) log(`${n} × ${why}`);
  return { finals, workerCpuMs, spoken, speechErrors, speakerFinals, translations, listeners };
}

/**
 * The lecture hall against a two-person room, alternating, on a platform whose rooms take 101
 * participants and whose engine translates through the instant server.
 */
export async function lectureHall(speech: SpeechStream): Promise<BenchResult[]> {
  const libre = await instantLibreTranslate();
  const translator = createTranslator({ backend: "libretranslate", url: libre.url });
  const tts = countingEspeak();
  const { stack, stop } = await startBenchPlatform({
    translator,
    speech: tts.engine,
    vars: { ROOM_MAX_PARTICIPANTS: String(LISTENERS + 1) },
  });
  // Locally the Worker, the room objects and the live hub share workerd's process: its CPU is theirs.
  const workerd = descendants(stack.workerPid() ?? -1, /workerd/);
  const workerCpu = () => cpuMs(workerd);
  try {
    const hall: HallRun[] = [];
    const pair: HallRun[] = [];
    let syntheses = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}: a two-person room, then ${LISTENERS} listeners`);
      pair.push(await runRoom(stack, speech, 1, libre.calls, workerCpu));
      const before = tts.count();
      hall.push(await runRoom(stack, speech, LISTENERS, libre.calls, workerCpu));
      syntheses += tts.count() - before;
    }
    const spoken = hall.flatMap((run) => run.spoken);
    const speechErrors = hall.reduce((n, run) => n + run.speechErrors, 0);
    const hallFinals = hall.flatMap((run) => run.finals);
    const pairFinals = pair.flatMap((run) => run.finals);
    const speakerFinals = hall.reduce((n, run) => n + run.speakerFinals, 0);
    const translations = hall.reduce((n, run) => n + run.translations, 0);
    const expected = LISTENERS * speech.phrases.length * ROUNDS;
    const cpuPerFinal = (runs: HallRun[]) =>
      runs.reduce((ms, run) => ms + run.workerCpuMs, 0) / runs.reduce((n, run) => n + run.speakerFinals, 0);
    return [
      result(
        "lecture hall listener final latency p50",
        percentile(hallFinals, 50),
        percentile(pairFinals, 50),
        "ms",
        `end of speech -> each of ${LISTENERS} listeners' translated final (${LANGUAGES.length} languages); ${hallFinals.length}/${expected} listener finals; ref: a two-person room, same run; target 1.2x`,
      ),
      result(
        "lecture hall listener final latency p95",
        percentile(hallFinals, 95),
        percentile(pairFinals, 95),
        "ms",
        "ref: a two-person room's p95, same run",
      ),
      result(
        "lecture hall translations per final",
        speakerFinals ? translations / speakerFinals : Number.NaN,
        LANGUAGES.length,
        "calls",
        `${translations} calls for ${speakerFinals} speaker finals (interim translations included where fast enough); ref: distinct listener languages, not ${LISTENERS} listeners`,
      ),
      result(
        "lecture hall worker CPU per final",
        cpuPerFinal(hall),
        cpuPerFinal(pair),
        "ms",
        `workerd's CPU (the room object, the Worker and the live hub share its process locally) from the first audio frame to the last final, per speaker final, fanned out to ${LISTENERS} listeners in ${LANGUAGES.length} languages with ${SPEAKING} spoken; ref: a two-person room, same run`,
      ),
      result(
        "lecture hall spoken translation latency p50",
        percentile(spoken, 50),
        percentile(hallFinals, 50),
        "ms",
        `end of speech -> translation_audio at each of ${SPEAKING} listeners with speak=true (espeak-ng on the node, ${LANGUAGES.length} languages); ${spoken.length}/${SPEAKING * speech.phrases.length * ROUNDS} (${speechErrors} tts errors); ref: the hall's translated final p50, same run`,
      ),
      result(
        "lecture hall spoken translation latency p95",
        percentile(spoken, 95),
        percentile(hallFinals, 95),
        "ms",
        "ref: the hall's translated final p95, same run",
      ),
      result(
        "lecture hall syntheses per final",
        speakerFinals ? syntheses / speakerFinals : Number.NaN,
        LANGUAGES.length,
        "calls",
        `${syntheses} espeak-ng syntheses for ${speakerFinals} speaker finals; ref: one per language spoken, not per listener`,
      ),
    ];
  } finally {
    await stop();
    await libre.stop();
  }
}
