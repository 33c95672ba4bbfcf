import { afterEach, describe, expect, it } from "vitest";
import { StreamTranslation, translateBatch } from "../../inference-node/live/stream-translation.ts";
import type { EngineMessage } from "../../inference-node/live/transcriber.ts";
import { logger } from "../../inference-node/logger.ts";
import { LatencyMeter } from "../../inference-node/translate/fan-out.ts";
import { LibreTranslateTranslator } from "../../inference-node/translate/libretranslate.ts";
import type { NodeToSession } from "../../protocol/live.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

/** Translation between the live engine and its link, over a real LibreTranslate-protocol server. */

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const quietLogger = logger.child({}, { level: "silent" });
const interim = (text: string, id = "u1"): EngineMessage => ({
  type: "interim",
  text,
  start: 0,
  end: 1,
  utterance_id: id,
  language: "en",
});
const final = (text: string, id = "u1"): EngineMessage => ({
  type: "final",
  text,
  start: 0,
  end: 1,
  language: "en",
  utterance_id: id,
});

/** A LibreTranslate server answering after `delayMs` (the first call after `firstDelayMs`). */
async function slowServer(delayMs: number, firstDelayMs = delayMs) {
  let calls = 0;
  return startServer(async (req, res) => {
    if (req.path === "/translate") {
      await new Promise((resolve) => setTimeout(resolve, calls++ === 0 ? firstDelayMs : delayMs));
    }
    libreTranslateHandler()(req, res);
  });
}

function setup(translatorUrl: string | null) {
  const sent: NodeToSession[] = [];
  const meter = new LatencyMeter();
  const translator = translatorUrl ? new LibreTranslateTranslator({ url: translatorUrl }) : null;
  const out = new StreamTranslation((m) => sent.push(m), { translator, meter }, quietLogger);
  return { out, sent, meter };
}

describe("StreamTranslation", () => {
  it("translates each final once per target and interims into the interim target, in order", async () => {
    server = await startServer(libreTranslateHandler());
    const { out, sent } = setup(server.url);
    out.configure(["es", "vi", "es", "en"], "es");
    out.push(interim("hello"));
    out.push(final("Hello there."));
    out.push({ type: "error", message: "decoding fell behind" });
    await out.drain();
    expect(sent).toEqual([
      { ...interim("hello"), translations: { es: "<es>hello</es>" }, translation_errors: [] },
      {
        ...final("Hello there."),
        translations: { es: "<es>Hello there.</es>", vi: "<vi>Hello there.</vi>", en: "Hello there." },
        translation_errors: [],
      },
      { type: "error", message: "decoding fell behind" },
    ]);
    // es and vi once each for the final, es once for the interim; en is the source
    expect(server.requests.filter((r) => r.path === "/translate")).toHaveLength(3);
  });

  it("keeps the engine's order even when an earlier translation is slower", async () => {
    server = await slowServer(5, 300);
    const { out, sent } = setup(server.url);
    out.configure(["es"], null);
    out.push(final("first", "u1"));
    out.push(final("second", "u2"));
    await out.drain();
    expect(sent.map((m) => (m.type === "final" ? m.text : m.type))).toEqual(["first", "second"]);
  });

  it("sends interims untranslated while the backend's moving call time is over 150 ms", async () => {
    server = await slowServer(250);
    const { out, sent, meter } = setup(server.url);
    out.configure(["es"], "es");
    out.push(final("A slow one."));
    await out.drain();
    expect(meter.fastEnough()).toBe(false);
    out.push(interim("now untranslated", "u2"));
    await out.drain();
    expect(sent.at(-1)).toMatchObject({ type: "interim", translations: {} });
    expect(server.requests.filter((r) => r.path === "/translate")).toHaveLength(1);
  });

  it("keeps the original and lists the target when the backend fails; never throws", async () => {
    server = await startServer((_req, res) => sendJson(res, 503, { error: "overloaded" }));
    const { out, sent } = setup(server.url);
    out.configure(["es", "fr"], "es");
    out.push(final("Hello."));
    await out.drain();
    expect(sent).toEqual([{ ...final("Hello."), translations: {}, translation_errors: ["es", "fr"] }]);

    const none = setup(null);
    none.out.configure(["es"], "es");
    none.out.push(interim("hi"));
    none.out.push(final("Hi."));
    await none.out.drain();
    expect(none.sent).toEqual([
      { ...interim("hi"), translations: {}, translation_errors: [] },
      { ...final("Hi."), translations: {}, translation_errors: ["es"] },
    ]);
  });

  it("transcribes only when no targets are configured, and sends nothing after close", async () => {
    const { out, sent } = setup(null);
    out.push(final("Plain."));
    await out.drain();
    expect(sent).toEqual([{ ...final("Plain."), translations: {}, translation_errors: [] }]);
    out.close();
    out.push(final("Late."));
    await out.drain();
    expect(sent).toHaveLength(1);
  });
});

describe("translateBatch", () => {
  it("translates every item into the requested language, null where one fails", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = { translator: new LibreTranslateTranslator({ url: server.url }), meter: new LatencyMeter() };
    await mt.translator.pairs();
    const answer = await translateBatch(mt, {
      type: "translate",
      request_id: "r1",
      to: "en",
      items: [
        { id: "a", text: "Hola", from: "es" },
        { id: "b", text: "Hello", from: "en" },
        { id: "c", text: "Saluton", from: "fr" },
      ],
    });
    expect(answer).toEqual({
      type: "translated",
      request_id: "r1",
      items: [
        { id: "a", text: "<en>Hola</en>" },
        { id: "b", text: "Hello" },
        { id: "c", text: null }, // fr → en is not offered by this server
      ],
    });
  });
});
