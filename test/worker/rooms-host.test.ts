import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { RoomClose, RoomServerMessage } from "../../protocol/rooms.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import {
  hostControl,
  join,
  newHostedSession,
  next,
  openRoom,
  pcmFrame,
  silent,
  until,
} from "./rooms-helpers.ts";

/**
 * Issue #31.2: a room's host (its host token, or the API key that created it) locks and unlocks it,
 * removes participants, stops speakers, gives the floor and ends the room, over REST; everyone is told
 * with a `system` message. Nobody else can, and the host token never reaches a participant.
 */

let creator: string;
let stranger: string;
const open: TestSocket[] = [];
let node: FakeNode | null = null;

beforeAll(async () => {
  creator = (await createKey("room-host")).key;
  stranger = (await createKey("room-stranger")).key;
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded);
});

async function member(conversationId: string, query: Record<string, string>) {
  const joined = await join(conversationId, query);
  open.push(joined.socket);
  return joined;
}

/** Every message a socket has received within `ms` of quiet. */
async function drain(socket: TestSocket, ms = 200): Promise<string[]> {
  const frames: string[] = [];
  for (;;) {
    try {
      frames.push(String(await socket.next(ms)));
    } catch {
      return frames;
    }
  }
}

describe("host credential", () => {
  it("comes with the create response, and never reaches a participant", async () => {
    const created = await newHostedSession(creator);
    expect(created.host_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const a = await member(created.conversation_id, { language: "en", name: "Ana" });
    const b = await member(created.conversation_id, { language: "es", role: "listener" });
    const byHost = await hostControl(
      created.conversation_id,
      { "x-host-token": created.host_token },
      { action: "lock" },
    );
    expect(byHost.status).toBe(200);
    expect(await byHost.text()).not.toContain(created.host_token);
    for (const socket of [a.socket, b.socket]) {
      const frames = await drain(socket);
      expect(frames.length).toBeGreaterThan(0);
      for (const frame of frames) expect(frame).not.toContain(created.host_token);
    }
  });
});

describe("host token in a browser", () => {
  it("may be sent cross-origin (the preflight allows X-Host-Token)", async () => {
    const response = await call(`/api/v1/session/${crypto.randomUUID()}/control`, {
      method: "OPTIONS",
      headers: {
        origin: "https://console.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-host-token, content-type",
      },
    });
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-host-token");
  });
});

describe("who may control a room", () => {
  it("refuses anyone but the host: 404 for another key, 403 for a wrong or another room's host token, 401 for nobody", async () => {
    const room = await newHostedSession(creator);
    const other = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en" });
    const attempts: [Record<string, string>, number][] = [
      [bearer(stranger), 404],
      [{ "x-host-token": other.host_token }, 403],
      [{ "x-host-token": "A".repeat(43) }, 403],
      [{ "x-host-token": "short" }, 403],
      [{}, 401],
    ];
    for (const [credential, status] of attempts) {
      for (const body of [
        { action: "lock" },
        { action: "end" },
        { action: "remove", client_id: a.clientId },
      ]) {
        const response = await hostControl(room.conversation_id, credential, body);
        expect(response.status, `${JSON.stringify(credential)} ${body.action}`).toBe(status);
        expect(await response.json()).toMatchObject({ error: expect.any(String) });
      }
    }
    // nothing happened: nobody was told anything, the room is open, A is still in it
    await silent(a.socket);
    const b = await member(room.conversation_id, { language: "es" });
    expect(b.clientId).not.toBe(a.clientId);
    // an unknown room is 404 whatever the credential
    const unknown = await hostControl(crypto.randomUUID(), bearer(creator), { action: "lock" });
    expect(unknown.status).toBe(404);
  });
});

describe("host actions", () => {
  it("locks and unlocks the room to new joins; a participant's resume still gets back in", async () => {
    const room = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en" });
    const locked = await hostControl(room.conversation_id, bearer(creator), { action: "lock" });
    expect(await locked.json()).toMatchObject({ locked: true, ended: false });
    expect(await next(a.socket)).toEqual({ type: "system", event: "locked", participant: null, by: "host" });

    const refused = await openRoom(room.conversation_id, { language: "es" });
    expect(await refused.closeWithin()).toEqual({
      code: RoomClose.locked,
      reason: "the host has locked the room",
    });

    a.socket.ws.close(4000, "dropped");
    const back = await member(room.conversation_id, { language: "en", resume: a.resumeToken });
    expect(back.clientId).toBe(a.clientId);

    await hostControl(room.conversation_id, { "x-host-token": room.host_token }, { action: "unlock" });
    expect((await until(back.socket, "system")).found).toMatchObject({ event: "unlocked" });
    await member(room.conversation_id, { language: "es" });
  });

  it("removes a participant: its socket closes with a reason, everyone is told, its resume token is refused", async () => {
    const room = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en", name: "Ana" });
    const b = await member(room.conversation_id, { language: "es", name: "Bo" });
    await until(a.socket, "partner_language");

    const response = await hostControl(room.conversation_id, bearer(creator), {
      action: "remove",
      client_id: b.clientId,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      locked: false,
      ended: false,
      participants: [{ client_id: a.clientId, name: "Ana", role: "speaker", language: "en" }],
    });
    const removed = { type: "system", event: "removed", participant: b.clientId, by: "host" };
    expect(await next(b.socket)).toEqual(removed);
    expect(await b.socket.closeWithin()).toEqual({
      code: RoomClose.removed,
      reason: "removed from the room by its host",
    });
    expect(await next(a.socket)).toEqual(removed);
    expect(await next(a.socket)).toMatchObject({ type: "user_left", client_count: 1, client_id: b.clientId });

    const again = await openRoom(room.conversation_id, { language: "es", resume: b.resumeToken });
    expect(await again.closeWithin()).toEqual({
      code: RoomClose.removed,
      reason: "you were removed from this room by its host",
    });
    const gone = await hostControl(room.conversation_id, bearer(creator), {
      action: "remove",
      client_id: b.clientId,
    });
    expect(gone.status).toBe(404);
  });

  it("stops a speaker (it stays, as a listener) and gives the floor back, with the list each time", async () => {
    const room = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en", name: "Ana" });
    const b = await member(room.conversation_id, { language: "es" });
    await until(a.socket, "partner_language");

    const stop = { action: "stop_speaker", client_id: a.clientId };
    expect((await hostControl(room.conversation_id, bearer(creator), stop)).status).toBe(200);
    for (const socket of [a.socket, b.socket]) {
      expect(await next(socket)).toEqual({
        type: "system",
        event: "speaker_stopped",
        participant: a.clientId,
        by: "host",
      });
      expect(RoomServerMessage.parse(await next(socket))).toEqual({
        type: "participants",
        participants: [
          { client_id: a.clientId, name: "Ana", role: "listener", language: "en" },
          { client_id: b.clientId, name: null, role: "speaker", language: "es" },
        ],
      });
    }
    // stopping a listener changes nothing, so nobody is told
    expect((await hostControl(room.conversation_id, bearer(creator), stop)).status).toBe(200);
    await silent(b.socket);

    const grant = { action: "grant_floor", client_id: a.clientId };
    const granted = await hostControl(room.conversation_id, { "x-host-token": room.host_token }, grant);
    expect(await granted.json()).toMatchObject({ participants: [{ role: "speaker" }, { role: "speaker" }] });
    expect(await next(b.socket)).toMatchObject({
      type: "system",
      event: "floor_granted",
      participant: a.clientId,
    });
  });

  it("ends a stopped speaker's stream and refuses its audio; the floor gives it an engine again", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const room = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en", name: "Ana" });
    await member(room.conversation_id, { language: "es", role: "listener" });
    await until(a.socket, "partner_language");
    a.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    expect(await session.json()).toMatchObject({ type: "config", language: "en" });
    expect(await session.next()).toBeInstanceOf(ArrayBuffer);

    const stop = { action: "stop_speaker", client_id: a.clientId };
    expect((await hostControl(room.conversation_id, bearer(creator), stop)).status).toBe(200);
    expect(await session.json()).toEqual({ type: "end" }); // the engine is asked to finish
    session.send({ type: "ended" });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    expect((await until(a.socket, "participants")).found.participants[0]).toMatchObject({ role: "listener" });
    a.socket.send(pcmFrame(true));
    expect((await until(a.socket, "error")).found).toMatchObject({ code: "listener" });
    await expect(node.nextAssignment(300)).rejects.toThrow(/no frame within/);

    const grant = { action: "grant_floor", client_id: a.clientId };
    expect((await hostControl(room.conversation_id, bearer(creator), grant)).status).toBe(200);
    a.socket.send(pcmFrame(true));
    const again = await node.acceptAssignment();
    expect(await again.session.json()).toMatchObject({ type: "config", language: "en" });
  });

  it("ends the room for everyone: told, closed with a reason, and the session is gone", async () => {
    const room = await newHostedSession(creator);
    const a = await member(room.conversation_id, { language: "en" });
    const b = await member(room.conversation_id, { language: "es" });
    await until(a.socket, "partner_language");
    const response = await hostControl(
      room.conversation_id,
      { "x-host-token": room.host_token },
      { action: "end" },
    );
    expect(await response.json()).toEqual({ locked: false, ended: true, participants: [] });
    for (const socket of [a.socket, b.socket]) {
      expect(await next(socket)).toEqual({ type: "system", event: "ended", participant: null, by: "host" });
      expect(await socket.closeWithin()).toEqual({
        code: RoomClose.endedByHost,
        reason: "the host ended the room",
      });
    }
    const rejoin = await openRoom(room.conversation_id, { language: "en" });
    expect(await rejoin.closeWithin()).toMatchObject({ code: RoomClose.notFound });
    expect((await hostControl(room.conversation_id, bearer(creator), { action: "lock" })).status).toBe(404);
  });
});
