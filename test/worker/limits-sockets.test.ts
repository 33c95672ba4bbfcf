/**
 * The socket limits of docs/api.md "Limits": live streams per API key (/ws and /api/v1/ws/single,
 * LIVE_MAX_STREAMS_PER_KEY = 2; one more is told why and closed with 4429), binary frames up to
 * exactly 64 KiB (one byte pair more closes with 1009), text control messages up to 4096 characters
 * (a longer one, up to a 1 MiB frame, is answered with an error and the stream goes on).
 */
import { afterEach, describe, expect, it } from "vitest";
import { LIVE_MAX_FRAME_BYTES, LiveClose } from "../../protocol/live.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";

let node: FakeNode | null = null;
const open: TestSocket[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function connect(path: string, key: string): Promise<TestSocket> {
  const { socket, response } = await upgrade(path, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`${path} answered ${response.status}`);
  open.push(socket);
  return socket;
}

/** Opens a stream and lets the fake engine dial in; returns the client (after `ready`) and the engine. */
async function stream(path: string, key: string): Promise<{ client: TestSocket; engine: TestSocket }> {
  const client = await connect(path, key);
  const { session } = await (node as FakeNode).acceptAssignment();
  expect(await client.json()).toMatchObject({ type: "ready" });
  return { client, engine: session };
}

describe("live streams per API key", () => {
  it("lets a key hold two streams; a third (/api/v1/ws/single or /ws) is told why and closed with 4429", async () => {
    node = await FakeNode.connect("roomy-engine", 6);
    const { key } = await createKey("greedy");
    await stream("/api/v1/ws/single", key);
    const second = await stream("/api/v1/ws/single", key);

    for (const path of ["/api/v1/ws/single", "/ws"]) {
      const refused = await connect(path, key);
      expect(await refused.json(), path).toEqual({
        type: "error",
        message: "this API key already has 2 live streams open (the most it may have); close one first",
      });
      expect((await refused.closeWithin()).code, path).toBe(LiveClose.tooManyStreams);
    }

    // another key is not affected, and the engine still has room
    const other = await createKey("modest");
    await stream("/api/v1/ws/single", other.key);

    // closing a stream gives the key its slot back at once
    second.client.ws.close(1000, "done");
    await second.client.closed;
    await stream("/api/v1/ws/single", key);
  });
});

describe("frame and message sizes", () => {
  it("/ws and /api/v1/ws/single relay a binary frame of exactly 64 KiB and close with 1009 above it", async () => {
    node = await FakeNode.connect("size-engine", 2);
    const { key } = await createKey("sizes");
    for (const path of ["/ws?language=en", "/api/v1/ws/single"]) {
      const { client, engine } = await stream(path, key);
      if (path.startsWith("/ws"))
        await engine.json(); // the connect-time config
      else {
        client.send({ type: "config", language: "en", translate_language: "es" });
        await engine.json();
      }
      client.send(new ArrayBuffer(LIVE_MAX_FRAME_BYTES));
      expect(((await engine.next()) as ArrayBuffer).byteLength, path).toBe(LIVE_MAX_FRAME_BYTES);
      client.send(new ArrayBuffer(LIVE_MAX_FRAME_BYTES + 2));
      expect((await client.closeWithin()).code, path).toBe(LiveClose.tooBig);
      await waitForHealth((h) => !h.busy);
    }
  });

  it("parses a control message of 4096 characters, answers a longer one (up to 1 MiB) with an error and goes on", async () => {
    node = await FakeNode.connect("text-engine", 1);
    const { key } = await createKey("texts");
    const { client, engine } = await stream("/ws?language=en", key);
    await engine.json(); // the connect-time config
    const config = JSON.stringify({ type: "config", language: "de" });
    client.send(`${config}${" ".repeat(4096 - config.length)}`);
    expect(await engine.json()).toEqual({ type: "config", language: "de" });
    for (const length of [4097, 64 * 1024, 1024 * 1024]) {
      client.send(`${config}${" ".repeat(length - config.length)}`);
      expect(await client.json(), `${length}`).toEqual({
        type: "error",
        message: "text frame longer than 4096 characters: audio goes in binary frames",
      });
    }
    client.send(new ArrayBuffer(320));
    expect(((await engine.next()) as ArrayBuffer).byteLength).toBe(320);
  });
});
