import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  LIVE_MAX_FRAME_BYTES,
  LIVE_NODE_PATH,
  LIVE_PING,
  LIVE_PONG,
  ServerMessage,
} from "../../protocol/live.ts";
import { call, createKey } from "./helpers.ts";
import { connectClient, FakeNode, health, upgrade, waitForHealth } from "./live-helpers.ts";

/**
 * /ws through the Worker's real fetch handler, the LiveHub and LiveSession objects, with a fake node on
 * the internal side (the real engine is covered by test/node and test/e2e).
 */

let key: string;
let node: FakeNode | null = null;

beforeAll(async () => {
  key = (await createKey("live")).key;
});

afterEach(async () => {
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.busy);
});

/** A connected node, a client past `ready`, and the node's side of that session. */
async function startSession(query = "") {
  node = await FakeNode.connect();
  const client = await connectClient(key, query);
  const { sessionId, session } = await node.acceptAssignment();
  const config = await session.json();
  const ready = ServerMessage.parse(await client.json());
  return { client, session, sessionId, config, ready };
}

const pcm = (bytes: number) => new Uint8Array(bytes).map((_, i) => i % 251).buffer;

describe("live session relay", () => {
  it("streams: ready, audio relayed unchanged, interim/final back, end flushes and closes 1000", async () => {
    const { client, session, sessionId, config, ready } = await startSession("?language=German");
    expect(ready).toEqual({ type: "ready", session_id: sessionId, sample_rate: 16000, format: "pcm_s16le" });
    expect(config).toEqual({ type: "config", language: "de" });
    expect((await health()).busy).toBe(true);

    const frame = pcm(3200);
    client.send(frame);
    expect(new Uint8Array((await session.next()) as ArrayBuffer)).toEqual(new Uint8Array(frame));

    // the engine's messages carry their utterance (and translations); /ws clients get the /ws shape
    session.send({ type: "interim", text: "hallo", start: 0.2, end: 1, utterance_id: "u1", language: "de" });
    expect(await client.json()).toEqual({ type: "interim", text: "hallo", start: 0.2, end: 1 });

    client.send({ type: "end" });
    expect(await session.json()).toEqual({ type: "end" });
    session.send({
      type: "final",
      text: "Hallo Welt.",
      start: 0.2,
      end: 1.4,
      language: "de",
      utterance_id: "u1",
    });
    session.send({ type: "ended" });
    expect(await client.json()).toEqual({
      type: "final",
      text: "Hallo Welt.",
      start: 0.2,
      end: 1.4,
      language: "de",
    });
    expect(await client.closeWithin()).toMatchObject({ code: 1000 });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    expect(await waitForHealth((h) => !h.busy)).toBeLessThan(1000);
  });

  it("accepts the key as the api_key query parameter (browsers cannot set headers)", async () => {
    node = await FakeNode.connect();
    const { socket } = await upgrade(`/ws?api_key=${encodeURIComponent(key)}`);
    expect(socket).not.toBeNull();
    await node.acceptAssignment();
    expect(await socket?.json()).toMatchObject({ type: "ready" });
    socket?.ws.close(1000, "done");
  });

  it("answers malformed control messages with an error and keeps the session going", async () => {
    const { client, session } = await startSession();
    for (const garbage of [
      "{not json",
      '{"type":"shout"}',
      "[1,2]",
      '{"type":"config","language":"klingon"}',
    ]) {
      client.send(garbage);
      const reply = ServerMessage.parse(await client.json());
      expect(reply.type).toBe("error");
    }
    client.send(pcm(3));
    expect(await client.json()).toMatchObject({
      type: "error",
      message: expect.stringMatching(/odd byte count/),
    });

    client.send({ type: "config", language: "auto" });
    expect(await session.json()).toEqual({ type: "config", language: "auto" });
    client.send(pcm(320));
    expect(((await session.next()) as ArrayBuffer).byteLength).toBe(320);
    client.ws.close(1000, "done");
  });

  it("closes with 1009 on a frame over 64 KiB and releases the gate", async () => {
    const { client, session } = await startSession();
    client.send(pcm(LIVE_MAX_FRAME_BYTES));
    expect(((await session.next()) as ArrayBuffer).byteLength).toBe(LIVE_MAX_FRAME_BYTES);
    client.send(pcm(LIVE_MAX_FRAME_BYTES + 2));
    expect(await client.closeWithin()).toMatchObject({ code: 1009 });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    expect(await waitForHealth((h) => !h.busy)).toBeLessThan(1000);
  });
});

describe("the session gate", () => {
  it("refuses a second client with 1013 and a reason while a session runs; busy follows the gate", async () => {
    const { client } = await startSession();
    const second = await connectClient(key);
    expect(await second.json()).toMatchObject({
      type: "error",
      message: expect.stringMatching(/another live session/),
    });
    expect(await second.closeWithin()).toMatchObject({
      code: 1013,
      reason: expect.stringMatching(/another/),
    });
    expect((await health()).busy).toBe(true);

    client.ws.close(1000, "bye");
    expect(await waitForHealth((h) => !h.busy)).toBeLessThan(1000);
  });

  it("releases the gate when the client closes, and the node's session socket is closed", async () => {
    const { client, session } = await startSession();
    client.ws.close(1001, "page closed");
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    expect(await waitForHealth((h) => !h.busy)).toBeLessThan(1000);
  });

  it("ends a session whose client went silent (idle timeout) with 1001 and releases the gate", async () => {
    const { client } = await startSession();
    // LIVE_IDLE_TIMEOUT_MS is 1.5 s in the test config
    expect(await waitForHealth((h) => !h.busy, 4_000)).toBeGreaterThan(1_000);
    expect(await client.json()).toMatchObject({ type: "error", message: expect.stringMatching(/no data/) });
    expect(await client.closeWithin()).toMatchObject({ code: 1001 });
  });

  it("tells the client and closes 1011 when the engine disconnects mid-session", async () => {
    const { client, session } = await startSession();
    session.ws.close(1000, "node crashed");
    expect(await client.json()).toMatchObject({
      type: "error",
      message: expect.stringMatching(/disconnected/),
    });
    expect(await client.closeWithin()).toMatchObject({ code: 1011 });
    expect(await waitForHealth((h) => !h.busy)).toBeLessThan(1000);
  });

  it("closes 1011 and releases the gate when the assigned engine never dials in", async () => {
    node = await FakeNode.connect();
    const client = await connectClient(key);
    await node.hub.json(); // the assignment, ignored
    expect(await client.json(5_000)).toMatchObject({
      type: "error",
      message: expect.stringMatching(/did not join/),
    });
    expect(await client.closeWithin(1_000)).toMatchObject({ code: 1011 });
    expect((await health()).busy).toBe(false);
  }, 10_000);

  it("replaces a node's older hub socket when it registers again", async () => {
    const stale = await FakeNode.connect("same-node");
    node = await FakeNode.connect("same-node");
    expect(await stale.hub.closeWithin()).toMatchObject({
      code: 1000,
      reason: expect.stringMatching(/replaced/),
    });
    const client = await connectClient(key);
    await node.acceptAssignment();
    expect(await client.json()).toMatchObject({ type: "ready" });
    client.ws.close(1000, "done");
  });

  it("refuses with 1013 and says so when no engine is connected", async () => {
    expect(await health()).toMatchObject({ asr_loaded: false, busy: false });
    const client = await connectClient(key);
    expect(await client.json()).toMatchObject({
      type: "error",
      message: expect.stringMatching(/no streaming engine/),
    });
    expect(await client.closeWithin()).toMatchObject({ code: 1013 });
  });

  it("does not count a node that registered with capacity 0", async () => {
    node = await FakeNode.connect("cold-node", 0);
    const client = await connectClient(key);
    expect(await client.closeWithin()).toMatchObject({
      code: 1013,
      reason: expect.stringMatching(/no streaming/),
    });
  });
});

describe("the handshake", () => {
  it("refuses a missing or bad key with 401 before upgrading", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer vx_not-a-real-key" },
      { "x-api-key": "nope" },
    ];
    for (const headers of attempts) {
      const { socket, response } = await upgrade("/ws", headers);
      expect(socket).toBeNull();
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "unauthorized" });
    }
    const { response } = await upgrade("/ws?api_key=vx_wrong");
    expect(response.status).toBe(401);
  });

  it("answers 400 without an Upgrade header and 422 for an unknown language", async () => {
    const plain = await call("/ws", { headers: { authorization: `Bearer ${key}` } });
    expect(plain.status).toBe(400);
    const { response } = await upgrade("/ws?language=klingon", { authorization: `Bearer ${key}` });
    expect(response.status).toBe(422);
  });

  it("keeps the node sockets behind the node token; the hub answers pings itself", async () => {
    expect((await upgrade(LIVE_NODE_PATH, { authorization: `Bearer ${key}` })).response.status).toBe(401);
    expect((await upgrade("/internal/v1/live/sessions/x")).response.status).toBe(401);
    node = await FakeNode.connect();
    node.hub.send(LIVE_PING);
    expect(await node.hub.next()).toBe(LIVE_PONG);
  });
});
