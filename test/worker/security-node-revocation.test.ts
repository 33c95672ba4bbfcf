/**
 * A revoked node leaves the live plane: the hub closes its hub socket and the stream sockets it dialled
 * within 2 × AUTH_CACHE_TTL_SEC, so a stolen token that registered as the biggest engine stops taking
 * (and black-holing) new streams. Runs in its own project with AUTH_CACHE_TTL_SEC = 1 (vitest.config.mts).
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { nodeIdentities } from "../../platform/schema.ts";
import { createKey, createNode } from "./helpers.ts";
import { connectClient, FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, pcmFrame, until } from "./rooms-helpers.ts";

/** The revocation bound, and room for a loaded 2-core machine to schedule the close. */
const WINDOW_MS = 2 * workerConfig(env).authCacheTtlMs + 2_000;

const open: TestSocket[] = [];
const nodes: FakeNode[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  for (const node of nodes.splice(0)) if (!node.hub.closedWith) await node.disconnect();
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function revoke(nodeId: string): Promise<void> {
  await db(env).update(nodeIdentities).set({ revokedAt: Date.now() }).where(eq(nodeIdentities.id, nodeId));
}

describe("a revoked node on the live plane", () => {
  it("loses its hub and stream sockets within 2 × AUTH_CACHE_TTL_SEC; new streams go to honest nodes", async () => {
    expect(workerConfig(env).authCacheTtlMs).toBe(1_000);
    const { key } = await createKey("revocation");
    const stolen = await createNode("gpu-stolen");
    const rogue = await FakeNode.connect("rogue", 64, "whisper-base", stolen.token);
    nodes.push(rogue);
    const victim = await connectClient(key);
    open.push(victim);
    const { session } = await rogue.acceptAssignment();
    expect(await victim.json()).toMatchObject({ type: "ready" });

    await revoke(stolen.id);
    expect(await rogue.hub.closeWithin(WINDOW_MS)).toMatchObject({
      code: 1008,
      reason: "node identity revoked",
    });
    await session.closeWithin(WINDOW_MS);
    expect(await victim.closeWithin(WINDOW_MS)).toMatchObject({ code: 1011 });

    // nothing is left of the rogue: with no other engine a new stream is refused, not black-holed
    const refused = await connectClient(key);
    open.push(refused);
    expect(await refused.json()).toMatchObject({ message: expect.stringMatching(/no streaming engine/) });

    // and an honest node serves the next session end to end
    const honest = await FakeNode.connect("honest", 1);
    nodes.push(honest);
    const client = await connectClient(key);
    open.push(client);
    const served = await honest.acceptAssignment();
    expect(await client.json()).toMatchObject({ type: "ready" });
    expect(await served.session.json()).toMatchObject({ type: "config" });
    served.session.send({
      type: "final",
      utterance_id: "u1",
      text: "still here",
      start: 0,
      end: 1,
      language: "en",
    });
    expect(await client.json()).toMatchObject({ type: "final", text: "still here" });
  });

  it("drops a revoked node's room stream and tells its speaker", async () => {
    const { key } = await createKey("room-revocation");
    const stolen = await createNode("gpu-stolen-room");
    const rogue = await FakeNode.connect("rogue-room", 64, "whisper-base", stolen.token);
    nodes.push(rogue);
    const speaker = (await join(await newSession(key), { language: "en" })).socket;
    open.push(speaker);
    speaker.send(pcmFrame(true));
    const { session: engine } = await rogue.acceptAssignment();
    expect(await engine.json()).toMatchObject({ type: "config" });

    await revoke(stolen.id);
    await engine.closeWithin(WINDOW_MS);
    const { found } = await until(speaker, "error", WINDOW_MS);
    expect(found).toMatchObject({ code: "engine_lost", message: expect.stringMatching(/withdrawn/) });
  });
});
