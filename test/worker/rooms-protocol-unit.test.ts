import { describe, expect, it } from "vitest";
import {
  applyLoad,
  type NodeAttachment,
  newNodeAttachment,
  usedStreams,
  withAssigned,
  withEnded,
} from "../../durable-objects/live/engine-nodes.ts";
import { askOrder, byRoom, shardOfIdentity } from "../../durable-objects/live/hub-shards.ts";
import { NodeIndex } from "../../durable-objects/live/node-index.ts";
import { PendingAudio } from "../../durable-objects/live/pending-audio.ts";
import { readSingleFrame, SingleDialect, singleTranscript } from "../../durable-objects/live/single-mode.ts";
import { decideControl, hostRefusal, wasRemoved } from "../../durable-objects/rooms/host-controls.ts";
import {
  finalFor,
  frameLevelDb,
  type HistoryEntry,
  listenerLanguages,
  type Participant,
  partnerLanguage,
  type RoomSession,
  readRoomFrame,
  streamConfig,
} from "../../durable-objects/rooms/room-protocol.ts";
import { displayName, RoomServerMessage, SingleServerMessage } from "../../protocol/rooms.ts";

/** The rooms' and single mode's protocol decisions, as plain functions. */

const session: RoomSession = {
  conversation_id: "c",
  user_a_lang: "en",
  user_a_translate: "es",
  creator_key_id: "key_1",
  created_at: 0,
};
const p = (client_id: string, language: string, joined_at: number): Participant => ({
  client_id,
  language,
  joined_at,
  left_at: null,
  resume_hash: "",
});

describe("partners and listeners", () => {
  it("pairs each participant with the earliest other one; alone, with the session's other language", () => {
    const room = [p("a", "en", 1), p("b", "es", 2), p("c", "fr", 3)];
    expect(partnerLanguage(room, "a", session)).toEqual({ lang: "es", languages: ["es", "fr"] });
    expect(partnerLanguage(room, "c", session)).toEqual({ lang: "en", languages: ["en", "es"] });
    expect(partnerLanguage([p("a", "en", 1)], "a", session).lang).toBe("es");
    expect(partnerLanguage([p("g", "es", 1)], "g", session).lang).toBe("en");
  });

  it("translates a speaker's finals once per distinct other language", () => {
    const room = [p("a", "en", 1), p("b", "es", 2), p("c", "es", 3), p("d", "en", 4), p("e", "fr", 5)];
    expect(listenerLanguages(room, "a")).toEqual(["es", "fr"]);
    expect(streamConfig(room, "a", session)).toEqual({
      type: "config",
      language: "en",
      targets: ["es", "fr"],
      interim_target: "es",
    });
    expect(streamConfig([p("a", "en", 1)], "a", session)).toMatchObject({
      targets: ["es"],
      interim_target: "es",
    });
    expect(streamConfig(room, "zz", session)).toBeNull();
  });
});

describe("what each reader gets", () => {
  const entry: HistoryEntry = {
    utterance_id: "u1",
    speaker: "a",
    language: "en",
    original: "Hello.",
    translations: { es: "Hola." },
    start: 0,
    end: 1,
    at: 0,
  };

  it("is the reader's own language (the speaker reads its partner's), the original when it matches", () => {
    expect(finalFor(entry, { client_id: "b", language: "es" }, "es")).toMatchObject({
      is_mine: false,
      translation: "Hola.",
    });
    expect(finalFor(entry, { client_id: "a", language: "en" }, "es")).toMatchObject({
      is_mine: true,
      translation: "Hola.",
    });
    const same = finalFor(entry, { client_id: "d", language: "en" }, "es");
    expect(same).toMatchObject({ translation: "Hello.", translation_language: "en" });
    expect(same).not.toHaveProperty("translation_error");
    expect(finalFor(entry, { client_id: "e", language: "fr" }, "es", true)).toMatchObject({
      translation: "Hello.",
      translation_error: true,
      history: true,
    });
    expect(() =>
      RoomServerMessage.parse(finalFor(entry, { client_id: "b", language: "es" }, "es")),
    ).not.toThrow();
  });
});

describe("frames", () => {
  it("tells audio from control messages and mistakes", () => {
    expect(readRoomFrame(new ArrayBuffer(3200))).toMatchObject({ kind: "audio" });
    expect(readRoomFrame(new ArrayBuffer(3))).toMatchObject({ kind: "error" });
    expect(readRoomFrame(new ArrayBuffer(64 * 1024 + 2))).toMatchObject({ kind: "close", code: 1009 });
    expect(readRoomFrame('{"type":"end"}')).toEqual({ kind: "control", message: { type: "end" } });
    expect(readRoomFrame("x".repeat(5000))).toMatchObject({
      kind: "error",
      message: expect.stringMatching(/binary/),
    });
    expect(readRoomFrame('{"type":"config"}')).toMatchObject({ kind: "error" });
  });

  it("measures a frame's level for the voice gate", () => {
    expect(frameLevelDb(new Int16Array([16384, -16384]).buffer)).toBeCloseTo(-6.02, 1);
    expect(frameLevelDb(new Int16Array(160).buffer)).toBe(-120);
    expect(frameLevelDb(new ArrayBuffer(0))).toBe(-120);
  });

  it("keeps at most its bound of waiting audio, newest first to stay", () => {
    const pending = new PendingAudio(10);
    for (const n of [4, 4, 4]) pending.push(new ArrayBuffer(n));
    expect(pending.bytes).toBe(8);
    expect(pending.take().map((f) => f.byteLength)).toEqual([4, 4]);
    expect(pending.bytes).toBe(0);
  });
});

describe("single mode", () => {
  it("normalises a config into the engine's (one target for finals and interims)", () => {
    expect(readSingleFrame('{"type":"config","language":"English","translate_language":"vi-VN"}')).toEqual({
      kind: "control",
      message: { type: "config", language: "en", targets: ["vi"], interim_target: "vi" },
    });
    expect(readSingleFrame('{"type":"config","language":"auto","translate_language":"auto"}')).toMatchObject({
      kind: "error",
      message: "unsupported translate_language: auto",
    });
  });

  it("tells a client streaming before its config once per 5 s, not once per frame", () => {
    // Under npm start a client sending 50 frames a second without a config got 50 errors a second.
    let now = 1_000;
    const dialect = new SingleDialect({ language: "auto", translate_language: null }, () => now);
    const frame = new ArrayBuffer(3200);
    const told = () => dialect.read(frame).toClient?.length ?? 0;
    expect(told()).toBe(1);
    for (let i = 0; i < 49; i++) {
      now += 20;
      expect(dialect.read(frame)).toEqual({});
    }
    now = 1_000 + 5_000;
    expect(told()).toBe(1);
    dialect.read('{"type":"config","language":"en","translate_language":"vi"}');
    expect(dialect.read(frame)).toEqual({ audio: frame });
  });

  it("maps engine results: translated, same-language, untranslated interim, failed final", () => {
    const base = { start: 0, end: 1, utterance_id: "u", translation_errors: [] as string[] };
    const translated = singleTranscript(
      { ...base, type: "final", text: "Hi.", language: "en", translations: { vi: "Chào." } },
      "vi",
    );
    expect(SingleServerMessage.parse(translated)).toMatchObject({ is_final: true, translation: "Chào." });
    expect(
      singleTranscript({ ...base, type: "interim", text: "hi", language: "vi", translations: {} }, "vi"),
    ).toMatchObject({
      translation: "hi",
    });
    expect(
      singleTranscript({ ...base, type: "interim", text: "hi", language: "en", translations: {} }, "vi"),
    ).toMatchObject({
      translation: "",
    });
    expect(
      singleTranscript(
        { ...base, type: "final", text: "Hi.", language: "en", translations: {}, translation_errors: ["vi"] },
        "vi",
      ),
    ).toMatchObject({ translation: "Hi.", translation_error: true });
  });
});

describe("engine capacity", () => {
  const attachment = (over: Partial<NodeAttachment> = {}): NodeAttachment => ({
    ...newNodeAttachment(0, "shared"),
    ...over,
  });
  /** A node socket and its attachment: the index only keys by the socket. */
  const engine = (capacity: number, over: Partial<NodeAttachment> = {}) => ({
    ws: {} as WebSocket,
    attachment: attachment({ registered: { node_id: `n${capacity}`, model: "m", capacity }, ...over }),
  });
  const indexOf = (engines: ReturnType<typeof engine>[], maxPerIdentity: number) => {
    const index = new NodeIndex(maxPerIdentity);
    const byIdle = [...engines].sort((a, b) => a.attachment.assigned_at - b.attachment.assigned_at);
    for (const { ws, attachment } of byIdle) index.set(ws, attachment);
    return index;
  };
  const any = () => true;

  it("counts reported streams and assignments not reported yet, less streams known to be over", () => {
    let a = withAssigned(attachment(), "s1", 1);
    expect(usedStreams(a).size).toBe(1);
    a = withAssigned(a, "s2", 2);
    // the node's report covers s1 only: s2 is still in flight
    a = applyLoad(a, { streams: ["s1"], assigned: 1 });
    expect([...usedStreams(a)].sort()).toEqual(["s1", "s2"]);
    // s1's session ended: free at once, before the node says so
    a = withEnded(a, "s1") ?? a;
    expect([...usedStreams(a)]).toEqual(["s2"]);
    expect(withEnded(a, "unknown")).toBeNull();
    // the node's next report agrees; the ended id is forgotten
    a = applyLoad(a, { streams: ["s2"], assigned: 2 });
    expect(a).toMatchObject({ unacked: [], running: ["s2"], ended: [] });
  });

  it("picks the engine with the most room, then the longest idle; none when all are full", () => {
    const full = engine(1, { running: ["x"] });
    const roomy = engine(4, { running: ["y"], assigned_at: 5 });
    const idle = engine(4, { running: ["z"], assigned_at: 1 });
    expect(indexOf([full, roomy, idle], 64).pick(true, any)).toBe(idle.ws);
    expect(indexOf([full], 64).pick(true, any)).toBeNull();
    expect(indexOf([full], 64).pick(false, any)).toBe(full.ws); // translate-only links need no slot
    // an engine that went quiet is passed over
    expect(indexOf([full, roomy, idle], 64).pick(true, (ws) => ws !== idle.ws)).toBe(roomy.ws);
  });

  it("caps the slots of one identity's engines together, whatever capacity they registered", () => {
    const rogueA = engine(64, { identity_id: "rogue", running: ["a", "b"], assigned_at: 5 });
    const rogueB = engine(64, { identity_id: "rogue", running: ["c"], assigned_at: 0 });
    const honest = engine(2, { identity_id: "honest", assigned_at: 9 });
    // rogue: 4 - 3 streams = 1 slot left over both sockets; the honest node's 2 free slots win
    expect(indexOf([rogueA, rogueB, honest], 4).pick(true, any)).toBe(honest.ws);
    const honestFull = engine(2, { identity_id: "honest", running: ["d", "e"] });
    expect(indexOf([rogueA, rogueB, honestFull], 4).pick(true, any)).toBe(rogueB.ws);
    expect(indexOf([rogueA, rogueB, honestFull], 3).pick(true, any)).toBeNull();
  });

  it("follows assignments and releases: who holds a stream, what the shard has free", () => {
    const a = engine(2, { identity_id: "a" });
    const b = engine(2, { identity_id: "b", assigned_at: 1 });
    const index = indexOf([a, b], 64);
    expect(index.load()).toEqual({ engines: 2, free: 4 });
    index.set(a.ws, withAssigned(a.attachment, "s1", 2));
    expect(index.holderOf("s1")).toBe(a.ws);
    expect(index.load()).toEqual({ engines: 2, free: 3 });
    // b has more room now
    expect(index.pick(true, any)).toBe(b.ws);
    index.set(a.ws, withEnded(index.get(a.ws) ?? a.attachment, "s1") ?? a.attachment);
    expect(index.holderOf("s1")).toBeNull();
    expect(index.load()).toEqual({ engines: 2, free: 4 });
    index.delete(b.ws);
    expect(index.load()).toEqual({ engines: 1, free: 2 });
  });
});

describe("hub shards", () => {
  it("puts a node identity's sockets in one shard, spread over the shards", () => {
    expect(shardOfIdentity("node_1", 4)).toBe(shardOfIdentity("node_1", 4));
    const used = new Set(Array.from({ length: 64 }, (_, i) => shardOfIdentity(`node_${i}`, 4)));
    expect([...used].sort()).toEqual([0, 1, 2, 3]);
    expect(shardOfIdentity("node_1", 1)).toBe(0);
  });

  it("asks two distinct shards first, then the rest; the freer first, none without room", () => {
    const order = askOrder(4, () => 0.99);
    expect(new Set(order).size).toBe(4);
    expect(order.slice(0, 2)).toEqual([3, 0]);
    expect(askOrder(1)).toEqual([0]);
    const loads = [
      [0, { engines: 1, free: 0 }],
      [1, { engines: 2, free: 1 }],
      [2, { engines: 2, free: 5 }],
      [3, { engines: 0, free: 0 }],
    ] as const;
    expect(byRoom(loads, true)).toEqual([2, 1]);
    expect(byRoom(loads, false)).toEqual([2, 1, 0]);
  });
});

describe("display names", () => {
  it("trims, bounds and refuses control and bidirectional-override characters", () => {
    expect(displayName(null)).toEqual({ ok: true, name: null });
    expect(displayName("   ")).toEqual({ ok: true, name: null });
    expect(displayName("  Ana María ")).toEqual({ ok: true, name: "Ana María" });
    expect(displayName("🎓".repeat(64))).toEqual({ ok: true, name: "🎓".repeat(64) });
    expect(displayName("x".repeat(65))).toMatchObject({ ok: false, reason: expect.stringMatching(/64/) });
    for (const bad of ["a\nb", "a\u0000b", "a\u009Fb", "a\u202Eb", "a\u2066b"]) {
      expect(displayName(bad)).toMatchObject({ ok: false, reason: expect.stringMatching(/control/) });
    }
  });
});

describe("host controls", () => {
  const hosted: RoomSession = { ...session, host_token_hash: "a".repeat(64) };
  const speaker: Participant = {
    client_id: "spk",
    language: "en",
    joined_at: 1,
    left_at: null,
    resume_hash: "b".repeat(64),
    name: "Ana",
  };
  const listener: Participant = {
    ...speaker,
    client_id: "lst",
    role: "listener",
    resume_hash: "c".repeat(64),
  };

  it("knows the host by the creating key or the room's token hash, nobody else", () => {
    expect(hostRefusal(hosted, { key_id: hosted.creator_key_id })).toBeNull();
    expect(hostRefusal(hosted, { host_token_hash: "a".repeat(64) })).toBeNull();
    expect(hostRefusal(hosted, { key_id: "someone-else" })).toEqual({ ok: false, reason: "not_found" });
    expect(hostRefusal(hosted, { host_token_hash: "d".repeat(64) })).toEqual({
      ok: false,
      reason: "forbidden",
    });
    // a room made before host tokens has none: no token opens it
    expect(hostRefusal(session, { host_token_hash: "a".repeat(64) })).toEqual({
      ok: false,
      reason: "forbidden",
    });
  });

  it("decides roles, removals and the lock; an action that changes nothing tells nobody", () => {
    const stop = decideControl(hosted, [speaker, listener], { action: "stop_speaker", client_id: "spk" });
    expect(stop).toMatchObject({
      ok: true,
      target: { role: "listener" },
      system: { event: "speaker_stopped" },
    });
    const again = decideControl(hosted, [listener], { action: "stop_speaker", client_id: "lst" });
    expect(again).toMatchObject({ ok: true, system: null });
    const removed = decideControl(hosted, [speaker, listener], { action: "remove", client_id: "lst" });
    if (!removed.ok) throw new Error("refused");
    expect(removed.participants).toEqual([speaker]);
    expect(wasRemoved(removed.session, listener.resume_hash)).toBe(true);
    expect(wasRemoved(removed.session, speaker.resume_hash)).toBe(false);
    expect(decideControl(hosted, [], { action: "remove", client_id: "nobody" })).toEqual({
      ok: false,
      reason: "no_participant",
    });
    const locked = decideControl(hosted, [], { action: "lock" });
    expect(locked).toMatchObject({ ok: true, session: { locked: true }, system: { event: "locked" } });
    if (!locked.ok) throw new Error("refused");
    expect(decideControl(locked.session, [], { action: "lock" })).toMatchObject({ system: null });
  });
});
