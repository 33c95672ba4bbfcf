import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { shardOfIdentity } from "../../durable-objects/live/hub-shards.ts";
import { assignStream, liveStatus, releaseStream } from "../../durable-objects/live/live-streams.ts";
import { workerConfig } from "../../platform/config.ts";
import { liveHub } from "../../platform/stubs.ts";
import { createKey, createNode } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";

/**
 * The live plane over LIVE_HUB_SHARDS hub shards (wrangler.toml: 4), through the Worker's real fetch
 * handler: nodes of two identities hashed to two different shards, single-device sessions that must find
 * their engines wherever they are, and an API key's stream count that holds across shards.
 */

const nodes: FakeNode[] = [];
const open: TestSocket[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  for (const node of nodes.splice(0)) if (!node.hub.closedWith) node.hub.ws.close(1000, "test over");
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

/** Two node identities whose hub sockets go to different shards. */
let identities: { id: string; token: string }[];

beforeAll(async () => {
  const shards = workerConfig(env).liveHubShards;
  const first = await createNode("shard-a");
  for (let i = 0; identities === undefined && i < 64; i++) {
    const other = await createNode(`shard-b-${i}`);
    if (shardOfIdentity(other.id, shards) !== shardOfIdentity(first.id, shards)) identities = [first, other];
  }
});

async function connectNodes(capacity: number, count = identities.length): Promise<FakeNode[]> {
  for (const [i, identity] of identities.slice(0, count).entries()) {
    nodes.push(await FakeNode.connect(`node-${i}`, capacity, "whisper-base", identity.token));
  }
  return nodes;
}

async function single(key: string): Promise<TestSocket> {
  const { socket, response } = await upgrade("/api/v1/ws/single", { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`single answered ${response.status}: ${await response.text()}`);
  open.push(socket);
  return socket;
}

describe("LiveHub shards", () => {
  it("puts nodes in their identities' shards, counts every shard's engines, and serves streams on each", async () => {
    expect(workerConfig(env).liveHubShards).toBeGreaterThan(1);
    const [a, b] = await connectNodes(1);
    expect(await liveStatus(env)).toMatchObject({
      busy: false,
      engines: 2,
      models: ["whisper-base", "whisper-base"],
    });

    // one slot on each shard: two streams (other keys' each) take both, whichever shards they ask first
    const first = await single((await createKey("shards-1")).key);
    const second = await single((await createKey("shards-2")).key);
    await Promise.all([a!.acceptAssignment(), b!.acceptAssignment()]);
    for (const client of [first, second]) expect(await client.json()).toMatchObject({ type: "ready" });
    const refused = await single((await createKey("shards-3")).key);
    expect(await refused.json()).toMatchObject({
      message: "every streaming engine is busy; try again later",
    });
    expect(await refused.closeWithin()).toMatchObject({ code: 1013 });
  });

  it("releases a stream at the shard that assigned it, at once, before its node reports", async () => {
    // one node, one slot, on one shard of the four
    const [node] = await connectNodes(1, 1);
    const { id: keyId } = await createKey("shards-release");
    const stream = { session_id: "release-1", key_id: keyId };
    const got = await assignStream(env, { ...stream, host: { object: "session" }, mode: "stream" });
    if (!got.ok) throw new Error(got.message);
    // the node takes the assignment but never dials or reports
    await node!.nextAssignment();
    const shard = liveHub(env, shardOfIdentity(identities[0]!.id, workerConfig(env).liveHubShards));
    expect(await shard.holds(["release-1"])).toEqual(["release-1"]);
    expect((await shard.load()).free).toBe(0);

    await releaseStream(env, { ...stream, mic: false });
    expect(await shard.holds(["release-1"])).toEqual([]);
    expect((await shard.load()).free).toBe(1);
    // every stream finds the one free slot, whichever two shards it asks first (3 of 4 hold no engine)
    for (let i = 0; i < 8; i++) {
      const again = { session_id: `release-again-${i}`, key_id: keyId };
      expect(
        await assignStream(env, { ...again, host: { object: "session" }, mode: "stream" }),
      ).toMatchObject({
        ok: true,
        node_id: got.node_id,
      });
      await releaseStream(env, { ...again, mic: false });
    }
  });

  it("counts an API key's streams across shards, and forgets those whose engine left", async () => {
    const max = workerConfig(env).liveMaxStreamsPerKey;
    const [a, b] = await connectNodes(max);
    const { id: keyId } = await createKey("shards-key");
    const ask = (i: number) =>
      assignStream(env, {
        session_id: `key-${i}`,
        key_id: keyId,
        host: { object: "session" },
        mode: "stream",
      });
    const held: string[] = [];
    for (let i = 0; i < max; i++) {
      const got = await ask(i);
      if (!got.ok) throw new Error(got.message);
      held.push(got.node_id);
    }
    // free slots are left on both shards, but the key holds its most
    expect(await liveStatus(env)).toMatchObject({ engines: 2 });
    expect(await ask(max)).toMatchObject({ ok: false, reason: "key_limit" });

    // the engine of the last stream goes away without any release: that stream stops counting
    const gone = held.at(-1) === "node-0" ? a! : b!;
    gone.hub.ws.close(1000, "gone");
    await gone.hub.closeWithin();
    for (let i = 0; (await liveStatus(env)).engines !== 1 && i < 100; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(await ask(max + 1)).toMatchObject({ ok: true });
  });
});
