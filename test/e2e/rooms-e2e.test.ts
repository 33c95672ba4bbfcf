import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinkAt } from "../../bench/vad-sets.ts";
import { unwrap } from "../../client/index.ts";
import { TranslationError } from "../../inference-node/translate/translator.ts";
import { WorkersAiTranslator } from "../../inference-node/translate/workers-ai.ts";
import { LIVE_MAX_FRAME_BYTES } from "../../protocol/live.ts";
import {
  RoomClose,
  RoomServerMessage,
  type RoomTranscript,
  SingleServerMessage,
  type SingleTranscript,
} from "../../protocol/rooms.ts";
import { type Apertium, startApertium } from "../../scripts/lib/apertium.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { type RecordingProxy, startRecordingProxy } from "../helpers/recording-proxy.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet, SR } from "../node/live-helpers.ts";
import { type LiveClient, openLive } from "./live-client.ts";

/**
 * Real-time translation through the whole platform: `ws` clients → wrangler dev (Worker, LiveHub,
 * TranslationRoom and LiveSession objects) → an inference node process (streaming engine on the
 * native addon, synthetic micro model: the words are noise) translating with the real Apertium APy
 * (en↔es), reached through a recording proxy: the test sees each text the node sent to APy, and
 * checks every translation against what APy itself answers for the same text. (The synthetic model's
 * words are not English, so APy mostly passes them through: what was asked of it is the proof.)
 */

type RoomClient = LiveClient<RoomServerMessage>;

let stack: LocalPlatform;
let apy: Apertium;
let proxy: RecordingProxy;
let node: ChildProcess;
let english: Float32Array;
let spanish: Float32Array;

beforeAll(async () => {
  apy = await startApertium();
  proxy = await startRecordingProxy(apy.url);
  stack = await LocalPlatform.start({ allowlist: [], vars: { LEASE_TTL_SEC: "30" } });
  node = await stack.startNode({
    env: { VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: proxy.url, VOXEDGE_LIVE_CAPACITY: "3" },
  });
  [english, spanish] = await Promise.all([
    speechPcm("Hello from the edge. This is a test of the room."),
    speechPcm("Hola desde el borde. Esta es una prueba.", "es"),
  ]);
  // the node reports its pairs with its first lease call; the engine registers at the hub
  for (let i = 0; i < 120; i++) {
    const listed = await stack.client.GET("/api/v1/languages").then(
      () => true,
      () => false,
    );
    if (listed) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 240_000);

afterAll(async () => {
  node?.kill("SIGKILL");
  await stack?.stop();
  await proxy?.close();
  await apy?.stop();
});

/** Whether the node asked APy to translate exactly `text` in `langpair`. */
const asked = (text: string, langpair: string) =>
  proxy.requests.some((r) => r.path === "/translate" && r.form.q === text && r.form.langpair === langpair);

/** What APy itself makes of `text` (unknown words unmarked, as the backend asks). */
async function apertium(text: string, langpair: "eng|spa" | "spa|eng"): Promise<string> {
  const form = new URLSearchParams({ langpair, q: text, markUnknown: "no" });
  const response = await fetch(`${apy.url}/translate`, { method: "POST", body: form });
  return ((await response.json()) as { responseData: { translatedText: string } }).responseData
    .translatedText;
}

async function createSession(language: string, translate: string): Promise<string> {
  const created = await unwrap(
    stack.client.POST("/api/v1/session/create", { body: { language, translate_language: translate } }),
  );
  return created.conversation_id;
}

async function joinRoom(id: string, query: Record<string, string>): Promise<RoomClient> {
  const client = await openLive(`${stack.url}/api/v1/ws/${id}?${new URLSearchParams(query)}`, {}, (json) =>
    RoomServerMessage.parse(json),
  );
  if (typeof client === "number") throw new Error(`room answered ${client}`);
  return client;
}

/** A new en→es room with an English speaker and a Spanish listener, both past `partner_language`. */
async function englishSpanishRoom(speaker: string, listener: string) {
  const id = await createSession("en", "es");
  const a = await joinRoom(id, { language: "en", client_id: speaker });
  await a.waitFor("partner_language");
  const b = await joinRoom(id, { language: "es", client_id: listener });
  await b.waitFor("partner_language");
  return { id, a, b };
}

const transcripts = (client: RoomClient) =>
  client.received.map((r) => r.message).filter((m): m is RoomTranscript => m.type === "transcript");

describe("multi-device room", () => {
  it("lists the languages Apertium and the recogniser share, with en/es as defaults", async () => {
    expect(await unwrap(stack.client.GET("/api/v1/languages"))).toMatchObject({
      supported_languages: [
        ["en", "English"],
        ["es", "Spanish"],
      ],
      default_source: "en",
      default_target: "es",
      translation_pairs: [
        ["en", "es"],
        ["es", "en"],
      ],
    });
    expect(await unwrap(stack.client.GET("/health"))).toMatchObject({
      mt_loaded: true,
      mt_model: "apertium",
    });
  });

  it("sends the speaker its interims, both of them every final, translated en↔es by Apertium", async () => {
    const { id, a, b } = await englishSpanishRoom("e2e-speaker-a", "e2e-listener-b");
    await a.waitUntil((m) => m.type === "partner_language" && m.lang === "es", "partner es");

    await a.stream(concat(quiet(300), english, quiet(1500)));
    const mine = await a.waitUntil((m) => m.type === "transcript" && !m.is_interim, "A's final", 20_000);
    const theirs = await b.waitUntil((m) => m.type === "transcript" && !m.is_interim, "B's final", 20_000);
    expect(transcripts(a).some((t) => t.is_interim)).toBe(true);
    expect(transcripts(b).every((t) => !t.is_interim && !t.is_mine)).toBe(true);
    if (mine.type !== "transcript" || theirs.type !== "transcript") throw new Error("not transcripts");
    expect(mine).toMatchObject({
      is_mine: true,
      speaker: "e2e-speaker-a",
      language: "en",
      translation_language: "es",
    });
    expect(theirs).toMatchObject({
      is_mine: false,
      speaker: "e2e-speaker-a",
      utterance_id: mine.utterance_id,
      original: mine.original,
      translation_language: "es",
    });
    expect(theirs).not.toHaveProperty("translation_error");
    expect(asked(theirs.original, "eng|spa")).toBe(true);
    expect(theirs.translation).toBe(await apertium(theirs.original, "eng|spa"));

    // B answers in Spanish: A reads it in English
    await b.stream(concat(quiet(300), spanish, quiet(1500)));
    const answer = await a.waitUntil(
      (m) => m.type === "transcript" && !m.is_mine && !m.is_interim,
      "B's final at A",
      20_000,
    );
    if (answer.type !== "transcript") throw new Error("not a transcript");
    expect(answer).toMatchObject({ speaker: "e2e-listener-b", language: "es", translation_language: "en" });
    expect(asked(answer.original, "spa|eng")).toBe(true);
    expect(answer.translation).toBe(await apertium(answer.original, "spa|eng"));

    // a late joiner gets the room's finals in its language
    const c = await joinRoom(id, { language: "en" });
    const history = await c.waitUntil(
      (m) => m.type === "transcript" && m.history === true,
      "history",
      10_000,
    );
    expect(history).toMatchObject({ utterance_id: mine.utterance_id, translation: mine.original });

    b.ws.close(1000, "bye");
    expect(await a.waitFor("user_left")).toMatchObject({ client_id: "e2e-listener-b" });
    for (const client of [a, c]) client.ws.close(1000, "done");
  });

  it("gives the partner finals only for speech when the speaker's room is noisy (Silero VAD)", async () => {
    const { a, b } = await englishSpanishRoom("e2e-noisy-speaker", "e2e-noisy-listener");
    // pink noise at -25 dBFS, loud enough for the room's level gate to open the engine stream
    const noise = (ms: number, seed: number) => pinkAt(ms / 1000, -25, seed);
    // the stream's clock starts at its first loud frame less the room's 300 ms pre-roll: the audio's 0
    const speechStart = 0.3 + 2.5;
    const speechEnd = speechStart + english.length / SR;
    await a.stream(concat(quiet(300), noise(2500, 1), english, noise(2500, 2), quiet(1500)));
    const final = await b.waitUntil((m) => m.type === "transcript" && !m.is_interim, "B's final", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // any late final out of the noise after it
    const finals = transcripts(b).filter((t) => !t.is_interim);
    expect(finals.length).toBeGreaterThanOrEqual(1);
    for (const t of finals) {
      expect(t.start, JSON.stringify(t)).toBeGreaterThanOrEqual(speechStart - 0.4);
      expect(t.end, JSON.stringify(t)).toBeLessThanOrEqual(speechEnd + 0.4);
    }
    expect(final).toMatchObject({ speaker: "e2e-noisy-speaker", translation_language: "es" });
    for (const client of [a, b]) client.ws.close(1000, "done");
  });

  it("closes with the documented codes and answers bad frames with errors", async () => {
    const unknown = await joinRoom(crypto.randomUUID(), { language: "en" });
    expect(await unknown.closeWithin()).toMatchObject({ code: RoomClose.notFound });
    const id = await createSession("en", "es");
    expect(await (await joinRoom(id, { language: "xx" })).closeWithin()).toMatchObject({
      code: RoomClose.badRequest,
    });

    const a = await joinRoom(id, { language: "en" });
    await a.waitFor("partner_language");
    a.ws.send("not audio");
    expect(await a.waitFor("error")).toMatchObject({ code: "bad_message" });
    a.ws.send(new Uint8Array(LIVE_MAX_FRAME_BYTES + 2));
    expect(await a.closeWithin()).toMatchObject({ code: 1009 });
  });
});

describe("single-device mode", () => {
  it("translates the finals of a config'd stream, and follows a new config", async () => {
    const client = await openLive<SingleServerMessage>(
      `${stack.url}/api/v1/ws/single?api_key=${encodeURIComponent(stack.key)}`,
      {},
      (json) => SingleServerMessage.parse(json),
    );
    if (typeof client === "number") throw new Error(`single answered ${client}`);
    client.sendJson({ type: "config", language: "en", translate_language: "es" });
    await client.waitFor("ready");
    await client.stream(concat(quiet(300), english, quiet(1200)));
    const final = (await client.waitUntil(
      (m) => m.type === "transcript" && m.is_final,
      "final",
      20_000,
    )) as SingleTranscript;
    expect(final).toMatchObject({ language: "en", translation_language: "es" });
    expect(asked(final.original, "eng|spa")).toBe(true);
    expect(final.translation).toBe(await apertium(final.original, "eng|spa"));
    const interims = client.received.filter((r) => r.message.type === "transcript" && !r.message.is_final);
    for (const { message } of interims) {
      if (message.type === "transcript") expect(message.utterance_id).toBe(final.utterance_id);
    }

    client.sendJson({ type: "config", language: "es", translate_language: "en" });
    const from = client.received.length;
    await client.stream(concat(quiet(300), spanish, quiet(1200)));
    client.sendJson({ type: "end" });
    const second = (await client.waitUntil(
      (m) => m.type === "transcript" && m.is_final,
      "second final",
      20_000,
      from,
    )) as SingleTranscript;
    expect(second).toMatchObject({ language: "es", translation_language: "en" });
    expect(asked(second.original, "spa|eng")).toBe(true);
    expect(second.translation).toBe(await apertium(second.original, "spa|eng"));
    expect(await client.closeWithin(10_000)).toMatchObject({ code: 1000 });
  });
});

describe("Workers AI backend", () => {
  it("reaches the Worker's translate route with the node token, which answers 503 without the [ai] binding", async () => {
    const mt = new WorkersAiTranslator({ url: stack.url, token: stack.token });
    const error = await mt.pairs().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranslationError);
    expect(error).toMatchObject({ code: "http", status: 503 });
    expect((error as Error).message).toMatch(
      /^workers-ai: HTTP 503: Workers AI is not bound on this deployment/,
    );
    const wrongToken = await new WorkersAiTranslator({ url: stack.url, token: "not-the-token" })
      .translate("Hello", "en", "es")
      .catch((e: unknown) => e);
    expect(wrongToken).toMatchObject({ code: "http", status: 401 });
  });
});
