import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Participant } from "../../durable-objects/rooms/room-protocol.ts";
import { RoomClose } from "../../protocol/rooms.ts";
import { call, createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, next, pcmFrame, silent, until } from "./rooms-helpers.ts";

/** Reconnects, history for late joiners, idle engines, expiry, and state that survives a restart. */

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("rooms-lifecycle")).key;
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded);
});

const room = (id: string) => env.TRANSLATION_ROOM.get(env.TRANSLATION_ROOM.idFromName(id));

async function member(id: string, query: Record<string, string>) {
  const joined = await join(id, query);
  open.push(joined.socket);
  return joined;
}

/** Makes the room believe `clientId` dropped `agoMs` ago. */
async function backdateDrop(id: string, clientId: string, agoMs: number): Promise<void> {
  await runInDurableObject(room(id), async (_instance, state) => {
    const all = (await state.storage.get<Record<string, Participant>>("participants")) ?? {};
    const p = all[clientId];
    if (!p?.left_at) throw new Error(`${clientId} has not dropped`);
    all[clientId] = { ...p, left_at: Date.now() - agoMs };
    await state.storage.put("participants", all);
  });
}

/** A final from the engine, for a speaker's stream. */
const final = (utterance: string, text: string, translations: Record<string, string>) => ({
  type: "final",
  text,
  start: 0,
  end: 1,
  language: "en",
  utterance_id: utterance,
  translations,
  translation_errors: [],
});

describe("reconnect", () => {
  it("keeps a dropped participant's place for 30 s: no user_left/user_joined churn", async () => {
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "keeper-aaaa" });
    const b = await member(id, { language: "es", client_id: "watcher-bbbb" });
    await until(a.socket, "partner_language");

    a.socket.ws.close(4001, "network dropped"); // not a normal close: the place is kept
    await silent(b.socket);
    const again = await member(id, { language: "en", resume: a.resumeToken });
    expect(again.clientId).toBe("keeper-aaaa");
    expect(again.partner).toBe("es");
    await silent(b.socket);

    // dropped again, and this time the grace runs out
    again.socket.ws.close(4001, "network dropped");
    await silent(b.socket, 100);
    await backdateDrop(id, "keeper-aaaa", 31_000);
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect(await next(b.socket)).toEqual({ type: "user_left", client_count: 1, client_id: "keeper-aaaa" });
  });

  it("replaces an older socket of the same participant (resumed elsewhere: 4409) and keeps one place", async () => {
    const id = await newSession(key);
    const first = await member(id, { language: "en", client_id: "twice-cccc" });
    const second = await member(id, { language: "en", resume: first.resumeToken });
    expect(second.clientId).toBe("twice-cccc");
    expect(await first.socket.closeWithin()).toMatchObject({ code: RoomClose.replaced });
    const other = await member(id, { language: "es" });
    const welcome = await next(second.socket);
    expect(welcome).toMatchObject({ type: "user_joined", client_count: 2, client_id: other.clientId });
  });

  it("keeps everything when the object restarts: places, languages and history come from storage", async () => {
    node = await FakeNode.connect("engine", 2);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "restart-aaaa" });
    const b = await member(id, { language: "es", client_id: "restart-bbbb" });
    await until(a.socket, "partner_language");
    a.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    await session.json();
    session.send(final("u1", "Before the restart.", { es: "Antes del reinicio." }));
    await until(b.socket, "transcript");
    // sockets carry who they are in their attachments (what hibernation keeps)
    const roles = await runInDurableObject(room(id), (_i, state) =>
      state.getWebSockets().map((ws) => ws.deserializeAttachment() as { role: string; client_id?: string }),
    );
    expect(roles).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ role: "client", client_id: "restart-aaaa" }),
        expect.objectContaining({ role: "client", client_id: "restart-bbbb" }),
        expect.objectContaining({ role: "stream", client_id: "restart-aaaa" }),
      ]),
    );

    await abortAllDurableObjects(); // the instance and its memory are gone; sockets drop (1006)
    await a.socket.closed;
    const backA = await member(id, { language: "en", resume: a.resumeToken });
    // the history comes back (in the partner's language for the speaker), no one is new
    expect(await next(backA.socket)).toMatchObject({
      type: "transcript",
      history: true,
      is_mine: true,
      translation: "Antes del reinicio.",
    });
    const backB = await member(id, { language: "es", resume: b.resumeToken });
    expect(await next(backB.socket)).toMatchObject({
      history: true,
      is_mine: false,
      translation: "Antes del reinicio.",
    });
    await silent(backA.socket); // B came back into its place: no user_joined
  });
});

describe("history for late joiners", () => {
  it("replays the last finals in the joiner's language, asking an engine once per new language", async () => {
    node = await FakeNode.connect("engine", 2);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "speaker-aaaa" });
    const b = await member(id, { language: "es", client_id: "reader-bbbb" });
    await until(a.socket, "partner_language");
    a.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    await session.json();
    // one at a time, as finals come (a burst from the test isolate is not delivered in order)
    for (let i = 1; i <= 22; i++) {
      session.send(final(`u${i}`, `Line ${i}.`, { es: `Línea ${i}.` }));
      await until(b.socket, "transcript");
    }

    // Spanish is known: replayed at once, the last 20 only
    const late = await member(id, { language: "es", client_id: "late-es-cccc" });
    const replayed = [];
    for (let i = 0; i < 20; i++) replayed.push(await next(late.socket));
    expect(replayed.map((m) => (m.type === "transcript" ? m.translation : m.type))).toEqual(
      Array.from({ length: 20 }, (_, i) => `Línea ${i + 3}.`),
    );
    expect(replayed[0]).toMatchObject({
      history: true,
      is_mine: false,
      speaker: "speaker-aaaa",
      language: "en",
    });

    // French is new: a translate-only link, then the replay in French
    const french = await join(id, { language: "fr", client_id: "late-fr-dddd" });
    open.push(french.socket);
    const link = await node.acceptAssignment();
    expect(link.mode).toBe("translate");
    const request = await link.session.json<{
      type: string;
      request_id: string;
      to: string;
      items: { id: string; text: string; from: string }[];
    }>();
    expect(request).toMatchObject({ type: "translate", to: "fr" });
    expect(request.items).toHaveLength(20);
    expect(request.items[0]).toEqual({ id: "u3", text: "Line 3.", from: "en" });
    link.session.send({
      type: "translated",
      request_id: request.request_id,
      items: request.items.map((item) => ({
        id: item.id,
        text: item.id === "u5" ? null : `Ligne ${item.id.slice(1)}.`,
      })),
    });
    const inFrench = [];
    for (let i = 0; i < 20; i++) inFrench.push(await next(french.socket));
    expect(inFrench[0]).toMatchObject({ history: true, translation: "Ligne 3.", translation_language: "fr" });
    // the one the engine could not translate comes as the original, flagged
    expect(inFrench[2]).toMatchObject({ translation: "Line 5.", translation_error: true });
    expect(await link.session.closeWithin()).toMatchObject({ code: 1000 });
  });
});

describe("engines", () => {
  it("gives an idle speaker's engine back (end, then ended), and says so when an engine never dials in", async () => {
    node = await FakeNode.connect("engine", 1);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "speaker-aaaa" });
    a.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    await session.json();
    await session.next(); // the frame
    // silence from here: after ~3 s the room asks the engine to finish
    expect(await session.json(6_000)).toEqual({ type: "end" });
    session.send({ type: "ended" });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the node's load report frees its slot

    a.socket.send(pcmFrame(true));
    await node.nextAssignment(); // ignored: the engine never dials in
    expect(await until(a.socket, "error", 6_000).then((r) => r.found)).toMatchObject({
      code: "engine_lost",
      message: expect.stringMatching(/did not join/),
    });
  }, 15_000);
});

describe("expiry", () => {
  it("closes everyone with 4408 after the idle time, then answers 404 and keeps nothing", async () => {
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    await runInDurableObject(room(id), (_i, state) => state.storage.put("activity", Date.now() - 901_000));
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect(await a.socket.closeWithin()).toMatchObject({ code: RoomClose.expired });
    const details = await call(`/api/v1/session/${id}`);
    expect(details.status).toBe(404);
    expect(await details.json()).toEqual({ error: "conversation not found or expired", code: "not_found" });
    const link = await call(`/join/${id}`, { headers: { accept: "*/*" } });
    expect(link.status).toBe(404);
    expect(await link.text()).toContain("This conversation has ended");
    const stored = await runInDurableObject(room(id), async (_i, state) => (await state.storage.list()).size);
    expect(stored).toBe(0);
    const late = await join(id, { language: "en" }).catch((error: unknown) => error);
    expect(String(late)).toMatch(/4404/);
  });

  it("ends a room at ROOM_MAX_AGE_SEC however busy it is: everyone closed with 4410 saying why, storage gone", async () => {
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    a.socket.send(pcmFrame(false)); // recent activity: the idle expiry is far away
    // created just over 12 h ago (ROOM_MAX_AGE_SEC's default in wrangler.toml)
    await runInDurableObject(room(id), async (_i, state) => {
      const session = await state.storage.get<Record<string, unknown>>("session");
      await state.storage.put("session", { ...session, created_at: Date.now() - 43_201_000 });
    });
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect(await a.socket.closeWithin()).toEqual({
      code: RoomClose.maxAge,
      reason: "the room reached its maximum age (43200 s): create a new session to go on",
    });
    expect((await call(`/api/v1/session/${id}`)).status).toBe(404);
    const stored = await runInDurableObject(room(id), async (_i, state) => (await state.storage.list()).size);
    expect(stored).toBe(0);
  });

  it("sets its alarm no later than the room's maximum age", async () => {
    const id = await newSession(key);
    await member(id, { language: "en" });
    await runInDurableObject(room(id), async (_i, state) => {
      const session = await state.storage.get<Record<string, unknown>>("session");
      await state.storage.put("session", { ...session, created_at: Date.now() - 43_200_000 + 60_000 });
    });
    expect(await runDurableObjectAlarm(room(id))).toBe(true); // nothing due yet: it reschedules
    const alarm = await runInDurableObject(room(id), (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("does not expire a room with recent activity: the alarm moves on", async () => {
    const id = await newSession(key);
    await member(id, { language: "en" });
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect((await call(`/api/v1/session/${id}`)).status).toBe(200);
    const alarm = await runInDurableObject(room(id), (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 890_000);
  });
});
