/**
 * Group `rooms`: multi-device translation latency through the whole local platform. wrangler dev runs
 * the Worker, the LiveHub and the TranslationRoom objects; the streaming engine runs in this process
 * (synthetic `base` model, 2 threads, the `live` group's platform) and translates with the real
 * Apertium APy (en→es). In each room a speaker streams the `live` group's espeak-ng speech at real
 * time in 100 ms frames and a partner listens in Spanish.
 *
 * - partner final latency: from the frame holding the end of a phrase to the partner's translated
 *   final covering it (the 600 ms endpointing pause and the translation included);
 * - speaker interim latency: word end → the speaker's first interim covering the word;
 * - translation call latency: each call the engine made to APy;
 * - the same with 4 rooms at once (4 speakers on one engine node), each room made by its own API key
 *   (four users), with the node's default live capacity (npm start's defaults throughout);
 * - a muted speaker: the speaker's frames stop right after the first phrase (no trailing silence);
 *   last frame sent -> the partner's final;
 * - encoder ms per decode (the addon's own timing) and the encoder context asked for; and, on the quiet
 *   engine after the runs, one 3 s live decode with the encoder context sized to it (the default)
 *   against the full 30 s window (`VOXEDGE_LIVE_AUDIO_CTX=off`, how live decodes ran before),
 *   interleaved.
 *
 * Reference: the `/ws` final latency (same speech, same engine, no translation), measured in this run,
 * interleaved with the room runs. Target: partner final ≤ 1.5 s p50.
 */

import { fitAudioCtx, liveTokenBudget } from "../inference-node/live/decode-policy.ts";
import type { DecodeStat } from "../inference-node/live/transcriber.ts";
import { ApertiumTranslator } from "../inference-node/translate/apertium.ts";
import type { LanguagePair, Translator } from "../inference-node/translate/translator.ts";
import type { WhisperModel } from "../native/index.ts";
import { RoomServerMessage } from "../protocol/rooms.ts";
import { startApertium } from "../scripts/lib/apertium.ts";
import { type LiveClient, openLive } from "../test/e2e/live-client.ts";
import type { LocalPlatform } from "../test/helpers/local-platform.ts";
import {
  buildStream,
  finalLatencies,
  interimLatencies,
  measureWs,
  type SpeechStream,
  startBenchPlatform,
  type Timed,
} from "./live.ts";
import { lectureHall, roomStreamOffset } from "./rooms-hall.ts";
import { percentile } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const FRAME_MS = 100;
const ROUNDS = 2;
const log = (msg: string) => process.stderr.write(`rooms: ${msg}\n`);

/** Times every call into the wrapped backend. */
class TimedTranslator implements Translator {
  readonly calls: number[] = [];
  constructor(private readonly inner: Translator) {}
  get model() {
    return this.inner.model;
  }
  pairs(signal?: AbortSignal): Promise<LanguagePair[]> {
    return this.inner.pairs(signal);
  }
  async translate(text: string, from: string, to: string, signal?: AbortSignal): Promise<string> {
    const started = performance.now();
    try {
      return await this.inner.translate(text, from, to, signal);
    } finally {
      this.calls.push(performance.now() - started);
    }
  }
}

type RoomClient = LiveClient<RoomServerMessage>;

async function join(stack: LocalPlatform, id: string, language: string): Promise<RoomClient> {
  const client = await openLive(`${stack.url}/api/v1/ws/${id}?language=${language}`, {}, (json) =>
    RoomServerMessage.parse(json),
  );
  if (typeof client === "number") throw new Error(`room answered ${client}`);
  await client.waitFor("partner_language");
  return client;
}

async function createRoom(stack: LocalPlatform, key: string): Promise<string> {
  const response = await fetch(`${stack.url}/api/v1/session/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ language: "en", translate_language: "es" }),
  });
  return ((await response.json()) as { conversation_id: string }).conversation_id;
}

/** A partner's final this long after the end of speech is too late for a conversation. */
const DELIVERY_LIMIT_MS = 5_000;

interface RoomRun {
  partnerFinals: number[];
  /** Phrases spoken in the run (each should reach the partner as a final). */
  phrases: number;
  speakerInterims: number[];
  finals: number;
  translationErrors: number;
}

/** `rooms` rooms at once: each speaker streams the speech; the partners' finals and the speakers' interims. */
async function measureRooms(stack: LocalPlatform, speech: SpeechStream, rooms: number): Promise<RoomRun> {
  const pairs = await Promise.all(
    Array.from({ length: rooms }, async (_, i) => {
      const id = await createRoom(stack, stack.keys[i + 1] ?? stack.key);
      const speaker = await join(stack, id, "en");
      const partner = await join(stack, id, "es");
      return { speaker, partner };
    }),
  );
  const sent = await Promise.all(pairs.map(({ speaker }) => speaker.stream(speech.audio, 1, FRAME_MS)));
  const lastPhrase = speech.phrases.at(-1)?.end ?? 0;
  const offset = roomStreamOffset(speech.audio);
  const out: RoomRun = {
    partnerFinals: [],
    phrases: rooms * speech.phrases.length,
    speakerInterims: [],
    finals: 0,
    translationErrors: 0,
  };
  for (const [i, { speaker, partner }] of pairs.entries()) {
    await partner
      .waitUntil(
        (m) => m.type === "transcript" && m.end + offset >= lastPhrase - 0.1,
        "the last final",
        20_000,
      )
      .catch(() => log("a partner never got the last phrase's final"));
    const timed = (client: RoomClient, interim: boolean): Timed[] =>
      client.received.flatMap((r) =>
        r.message.type === "transcript" && r.message.is_interim === interim
          ? [{ start: r.message.start, end: r.message.end, at: r.at }]
          : [],
      );
    const sentAt = sent[i] ?? [];
    out.partnerFinals.push(...finalLatencies(timed(partner, false), speech.phrases, sentAt, offset));
    out.speakerInterims.push(...interimLatencies(timed(speaker, true), speech.words, sentAt, offset));
    const finals = partner.received.filter((r) => r.message.type === "transcript");
    out.finals += finals.length;
    out.translationErrors += finals.filter(
      (r) => r.message.type === "transcript" && r.message.translation_error,
    ).length;
    for (const client of [speaker, partner]) client.ws.close(1000, "bench over");
  }
  return out;
}

/** One room whose speaker says the first phrase and mutes at once: last frame -> the partner's final. */
async function measureMuted(stack: LocalPlatform, speech: SpeechStream): Promise<number | null> {
  const first = speech.phrases[0];
  if (!first) return null;
  const id = await createRoom(stack, stack.key);
  const speaker = await join(stack, id, "en");
  const partner = await join(stack, id, "es");
  const audio = speech.audio.subarray(0, Math.ceil(((first.end * 1000) / FRAME_MS) * 1600));
  const sentAt = await speaker.stream(audio, 1, FRAME_MS);
  const last = sentAt.at(-1) ?? performance.now();
  const final = await partner
    .waitUntil((m) => m.type === "transcript" && !m.is_interim, "the muted speaker's final", 15_000)
    .then(() => partner.received.find((r) => r.message.type === "transcript" && !r.message.is_interim))
    .catch(() => null);
  for (const client of [speaker, partner]) client.ws.close(1000, "bench over");
  return final ? final.at - last : null;
}

/**
 * Encoder ms of one live decode of `seconds` of the speech, with the context the engine asks for
 * (auto) and with the full 30 s window, interleaved; each decode as the engine makes it.
 */
async function encoderAutoVsFull(model: WhisperModel, speech: SpeechStream, seconds: number) {
  const audio = speech.audio.subarray(0, seconds * 16_000);
  const stream = await model.createStream();
  const auto: number[] = [];
  const full: number[] = [];
  try {
    for (let round = 0; round < 5; round++) {
      for (const [ctx, into] of [
        [fitAudioCtx(audio.length), auto],
        [0, full],
      ] as const) {
        const t = await stream.decode(audio, {
          language: "en",
          audioCtx: ctx,
          timestamps: false,
          maxTokens: liveTokenBudget(audio.length, 0),
        });
        into.push(t.timings.encodeMs);
      }
    }
  } finally {
    await stream.dispose();
  }
  return { auto: percentile(auto, 50), full: percentile(full, 50), ctx: fitAudioCtx(audio.length) };
}

export const rooms: BenchGroup = async () => {
  const speech = await buildStream();
  const apy = await startApertium();
  const translator = new TimedTranslator(new ApertiumTranslator({ url: apy.url }));
  await translator.pairs();
  // npm start's defaults: the node's default live capacity; four users, one room each
  const { stack, decodes, model, stop } = await startBenchPlatform({ translator, users: 4 });
  try {
    await fetch(`${stack.url}/health`);
    const ws: number[] = [];
    const wsInterims: number[] = [];
    const room: RoomRun = {
      partnerFinals: [],
      phrases: 0,
      speakerInterims: [],
      finals: 0,
      translationErrors: 0,
    };
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round}/${ROUNDS}: /ws (reference), then one room`);
      const reference = await measureWs(stack.url, stack.key, speech);
      ws.push(...reference.finals);
      wsInterims.push(...reference.interims);
      const run = await measureRooms(stack, speech, 1);
      room.partnerFinals.push(...run.partnerFinals);
      room.phrases += run.phrases;
      room.speakerInterims.push(...run.speakerInterims);
      room.finals += run.finals;
      room.translationErrors += run.translationErrors;
    }
    const callsBefore4 = translator.calls.length;
    log("4 rooms at once");
    const decodesBefore4 = decodes.length;
    const four = await measureRooms(stack, speech, 4);
    const fourDecodes = decodes.slice(decodesBefore4);
    const after = await measureWs(stack.url, stack.key, speech);
    log("a muted speaker");
    const muted = await measureMuted(stack, speech);
    log("encoder: a 3 s live decode, context sized to it vs the full window");
    const encoder3s = await encoderAutoVsFull(model, speech, 3);
    ws.push(...after.finals);
    wsInterims.push(...after.interims);

    const wsP50 = percentile(ws, 50);
    const wsP95 = percentile(ws, 95);
    const calls = translator.calls.slice(0, callsBefore4);
    const phrases = speech.phrases.length;
    const inTime = (run: RoomRun) => run.partnerFinals.filter((ms) => ms <= DELIVERY_LIMIT_MS).length;
    const encoder = (list: typeof decodes, kinds: readonly DecodeStat["kind"][]) =>
      list.flatMap((d) => (kinds.includes(d.kind) && d.encodeMs !== null ? [d.encodeMs] : []));
    const finalEncodes = encoder(decodes, ["tentative", "final"]);
    const tentative = decodes.filter((d) => d.kind === "tentative" && d.encodeMs !== null).length;
    const ctxOf = (list: typeof decodes) => list.map((d) => (d.audioCtx === 0 ? 1500 : d.audioCtx));
    const out: BenchResult[] = [
      result(
        "room partner final latency p50",
        percentile(room.partnerFinals, 50),
        wsP50,
        "ms",
        `end of speech -> partner's translated final; ${room.partnerFinals.length}/${ROUNDS * phrases} phrases, ${room.translationErrors} translation errors; ref: /ws final p50 (no translation), this run; target 1500 ms`,
      ),
      result(
        "room partner final latency p95",
        percentile(room.partnerFinals, 95),
        wsP95,
        "ms",
        "ref: /ws final p95",
      ),
      result(
        "room speaker interim latency p50",
        percentile(room.speakerInterims, 50),
        percentile(wsInterims, 50),
        "ms",
        `word end -> speaker's first interim covering it; ${room.speakerInterims.length}/${ROUNDS * speech.words.length} words; ref: /ws interim p50, this run`,
      ),
      result(
        "room speaker interim latency p95",
        percentile(room.speakerInterims, 95),
        percentile(wsInterims, 95),
        "ms",
        "ref: /ws interim p95",
      ),
      result(
        "translation call latency p50 (apertium)",
        percentile(calls, 50),
        150,
        "ms",
        `${calls.length} calls (finals and fast interims); ref: the 150 ms interim budget`,
      ),
      result("translation call latency p95 (apertium)", percentile(calls, 95), 150, "ms"),
      result(
        "4 rooms partner final latency p50",
        percentile(four.partnerFinals, 50),
        wsP50,
        "ms",
        `4 speakers at once on one node; ${four.partnerFinals.length}/${4 * phrases} phrases, ${four.translationErrors} translation errors; ref: /ws final p50`,
      ),
      result(
        "4 rooms partner final latency p95",
        percentile(four.partnerFinals, 95),
        wsP95,
        "ms",
        "ref: /ws final p95",
      ),
      result(
        "4 rooms speaker interim latency p50",
        percentile(four.speakerInterims, 50),
        percentile(wsInterims, 50),
        "ms",
        `${four.speakerInterims.length}/${4 * speech.words.length} words (slow decoding thins interims); ref: /ws interim p50`,
      ),
      result(
        "4 rooms partner final latency max",
        four.partnerFinals.length ? Math.max(...four.partnerFinals) : Number.NaN,
        DELIVERY_LIMIT_MS,
        "ms",
        `${inTime(four)}/${four.phrases} phrases reached their partner as a final within ${DELIVERY_LIMIT_MS} ms (1 room: ${inTime(room)}/${room.phrases})`,
      ),
      result(
        "muted speaker partner final latency",
        muted ?? Number.NaN,
        1000,
        "ms",
        "the speaker's frames stop right after the phrase: last frame sent -> partner's final; target 1000 ms",
      ),
      result(
        "encoder ms per interim decode p50",
        percentile(encoder(decodes, ["interim"]), 50),
        null,
        "ms",
        `${encoder(decodes, ["interim"]).length} decodes, the whole run; encoder context p50 ${percentile(ctxOf(decodes), 50)} (1500 = 30 s)`,
      ),
      result(
        "encoder ms per final decode p50",
        percentile(finalEncodes, 50),
        null,
        "ms",
        `${finalEncodes.length} decodes, the whole run (${tentative} at a pause, ${finalEncodes.length - tentative} at the end of an utterance)`,
      ),
      result(
        "encoder ms per 3 s live decode (auto context)",
        encoder3s.auto,
        encoder3s.full,
        "ms",
        `context ${encoder3s.ctx} (VOXEDGE_LIVE_AUDIO_CTX=auto, the default) vs the full 30 s window (off), quiet engine, 5 each interleaved`,
      ),
      result(
        "4 rooms encoder ms per decode p50",
        percentile(encoder(fourDecodes, ["interim", "tentative", "final"]), 50),
        null,
        "ms",
        `${fourDecodes.length} decodes while 4 speakers streamed at once`,
      ),
      result(
        "/ws final latency p50 (reference)",
        wsP50,
        null,
        "ms",
        `${ws.length}/${(ROUNDS + 1) * phrases} phrases over ${ROUNDS + 1} runs interleaved with the rooms`,
      ),
    ];
    return out;
  } finally {
    await stop();
    await apy.stop();
  }
};

/** The whole group: the rooms above, then the lecture hall on a platform of its own. */
export const roomsWithHall: BenchGroup = async () => {
  const speech = await buildStream();
  return [...(await rooms()), ...(await lectureHall(speech))];
};
