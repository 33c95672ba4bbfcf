/**
 * A node's hub socket belongs to its node identity. The node id a node registers is its own claim, so
 * a node on another token registering the same node id must not push the first node's socket out (and
 * with it take the streams the hub would hand that node); the same identity reconnecting still replaces
 * its older, maybe half-open, socket. The capacity a node registers is its own claim too, so the hub
 * caps each identity's; a stream's dial-in path carries a secret and is taken only from the identity
 * it was assigned to, and never names the room it serves.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type AssignMessage, LIVE_NODE_PATH, LIVE_PING, LIVE_PONG } from "../../protocol/live.ts";
import { bearer, createKey, createNode, NODE_TOKEN } from "./helpers.ts";
import { connectClient, FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";
import { join, newSession, pcmFrame } from "./rooms-helpers.ts";

const open: TestSocket[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

/** A socket closed by the test's end. */
function kept<T extends TestSocket | FakeNode>(socket: T): T {
  open.push(socket instanceof FakeNode ? socket.hub : socket);
  return socket;
}

/** Assignments `node` receives until it has been quiet for `quietMs`. */
async function drain(node: TestSocket, quietMs = 500): Promise<AssignMessage[]> {
  const got: AssignMessage[] = [];
  for (;;) {
    const frame = await node.next(quietMs).catch(() => null);
    if (frame === null) return got;
    got.push(JSON.parse(frame as string) as AssignMessage);
  }
}

/** A single-device session of `key`, closed by the test's end. */
async function single(key: string): Promise<TestSocket> {
  const { socket, response } = await upgrade("/api/v1/ws/single", bearer(key));
  if (!socket) throw new Error(`single answered ${response.status}`);
  return kept(socket);
}

/** A hub socket on `token` that registered `nodeId`. */
async function registered(token: string, nodeId: string, capacity = 1): Promise<TestSocket> {
  const { socket } = await upgrade(LIVE_NODE_PATH, bearer(token));
  if (!socket) throw new Error("the hub refused the node");
  socket.send({ type: "register", node_id: nodeId, model: "whisper-base", capacity });
  return socket;
}

/** Waits until the hub handled everything `socket` sent: a bad message after them closes it (1008). */
async function settled(socket: TestSocket): Promise<void> {
  socket.send("not json");
  expect((await socket.closeWithin(5_000)).code).toBe(1008);
}

describe("hub sockets and node identities", () => {
  it("gives one identity at most LIVE_NODE_MAX_CAPACITY (4) streams, whatever capacity its sockets register", async () => {
    const { token } = await createNode("gpu-greedy");
    const first = kept(await FakeNode.connect("greedy-1", 64, "whisper-base", token));
    const second = kept(await registered(token, "greedy-2", 64));
    const keys = await Promise.all([1, 2, 3].map((i) => createKey(`greedy-${i}`)));
    for (const i of [0, 1, 2, 3]) await single(keys[i >> 1]!.key);
    const refused = await single(keys[2]!.key);
    expect(await refused.json()).toEqual({
      type: "error",
      message: "every streaming engine is busy; try again later",
    });
    expect(await refused.closeWithin()).toMatchObject({ code: 1013 });
    const assigned = [...(await drain(first.hub)), ...(await drain(second))];
    expect(assigned).toHaveLength(4);
  });

  it("takes a stream's dial-in only from the identity it was assigned to", async () => {
    const assigned = await createNode("gpu-assigned");
    const other = await createNode("gpu-other");
    const node = kept(await FakeNode.connect("assigned", 1, "whisper-base", assigned.token));
    const client = kept(await connectClient((await createKey("dial-in")).key));
    const assign = await node.nextAssignment();
    for (const token of [other.token, NODE_TOKEN]) {
      const intruder = await upgrade(assign.path, bearer(token));
      expect(intruder.socket, `dial-in with ${token.slice(0, 8)}…`).toBeNull();
      expect(intruder.response.status).toBe(404);
    }
    const engine = await upgrade(assign.path, bearer(assigned.token));
    expect(engine.socket).not.toBeNull();
    kept(engine.socket!);
    expect(await client.json()).toMatchObject({ type: "ready" });
  });

  it("sends a room speaker's engine a path with a per-stream secret and without the conversation id", async () => {
    const { key } = await createKey("room-path");
    const conversation = await newSession(key);
    const node = kept(await FakeNode.connect("room-engine", 1));
    const speaker = kept((await join(conversation, { language: "en" })).socket);
    speaker.send(pcmFrame(true));
    const assign = await node.nextAssignment();
    expect(assign.path).not.toContain(conversation);
    const forged = assign.path.replace(/[^/]+$/, "A".repeat(43));
    expect((await upgrade(forged, bearer(NODE_TOKEN))).response.status).toBe(404);
    const engine = await upgrade(assign.path, bearer(NODE_TOKEN));
    expect(engine.socket).not.toBeNull();
    expect(await kept(engine.socket!).json()).toMatchObject({ type: "config", language: "en" });
  });

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
