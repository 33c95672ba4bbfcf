/**
 * A node's hub socket belongs to its node identity. The node id a node registers is its own claim, so
 * a node on another token registering the same node id must not push the first node's socket out (and
 * with it take the streams the hub would hand that node); the same identity reconnecting still replaces
 * its older, maybe half-open, socket.
 */
import { describe, expect, it } from "vitest";
import { LIVE_NODE_PATH, LIVE_PING, LIVE_PONG } from "../../protocol/live.ts";
import { bearer, createNode } from "./helpers.ts";
import { type TestSocket, upgrade } from "./live-helpers.ts";

/** A hub socket on `token` that registered `nodeId`. */
async function registered(token: string, nodeId: string): Promise<TestSocket> {
  const { socket } = await upgrade(LIVE_NODE_PATH, bearer(token));
  if (!socket) throw new Error("the hub refused the node");
  socket.send({ type: "register", node_id: nodeId, model: "whisper-base", capacity: 1 });
  return socket;
}

/** Waits until the hub handled everything `socket` sent: a bad message after them closes it (1008). */
async function settled(socket: TestSocket): Promise<void> {
  socket.send("not json");
  expect((await socket.closeWithin(5_000)).code).toBe(1008);
}

describe("hub sockets and node identities", () => {
  it("keeps a node's hub socket when another identity registers the same node id", async () => {
    const a = await createNode("gpu-a");
    const b = await createNode("gpu-b");
    const first = await registered(a.token, "shared-node-id");
    await settled(await registered(b.token, "shared-node-id"));
    first.send(LIVE_PING);
    expect(await first.next(5_000)).toBe(LIVE_PONG);
    first.ws.close(1000, "test over");
  });

  it("still replaces the older socket when the same identity registers its node id again", async () => {
    const a = await createNode("gpu-a");
    const first = await registered(a.token, "reconnecting-node");
    const second = await registered(a.token, "reconnecting-node");
    expect(await first.closeWithin(5_000)).toMatchObject({ reason: expect.stringContaining("replaced") });
    second.ws.close(1000, "test over");
  });
});
