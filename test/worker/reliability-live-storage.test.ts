import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { sessionRequest } from "../../durable-objects/live/live-session.ts";
import { liveSession } from "../../platform/stubs.ts";
import { createKey } from "./helpers.ts";
import { connectClient, FakeNode, TestSocket, waitForHealth } from "./live-helpers.ts";

/**
 * One LiveSession object per stream: when the stream is over its storage must go too, or every /ws or
 * single-device session leaves a key behind forever (the soak bench counted 501 after 501 sessions).
 * It keeps the "finished" mark for a grace period, so a node dialling in late is still refused, then
 * its alarm deletes everything.
 */

let key: string;
let node: FakeNode | null = null;

beforeAll(async () => {
  key = (await createKey("live-storage")).key;
});

afterEach(async () => {
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.busy);
});

/** The session object's keys and pending alarm. */
function stored(sessionId: string) {
  return runInDurableObject(liveSession(env, sessionId), async (_instance, state) => ({
    keys: [...(await state.storage.list()).keys()],
    alarm: await state.storage.getAlarm(),
  }));
}

/** A session past `ready`; returns its id and both sockets. */
async function startSession() {
  node = await FakeNode.connect();
  const client = await connectClient(key);
  const { sessionId, session } = await node.acceptAssignment();
  await session.json(); // config
  await client.json(); // ready
  return { client, session, sessionId };
}

async function expectForgottenAfterGrace(sessionId: string) {
  // Within the grace the session is still known to be over: a late dial-in is closed at once.
  const dialIn = new Request("https://live-session/node", { headers: { upgrade: "websocket" } });
  const late = await liveSession(env, sessionId).fetch(
    sessionRequest(dialIn, { role: "node", session_id: sessionId }),
  );
  expect(late.webSocket).not.toBeNull();
  expect(await new TestSocket(late.webSocket!).closeWithin()).toMatchObject({
    code: 1000,
    reason: "session over",
  });
  const during = await stored(sessionId);
  expect(during.keys).toEqual(["meta"]);
  expect(during.alarm).toBeGreaterThan(Date.now());

  expect(await runDurableObjectAlarm(liveSession(env, sessionId))).toBe(true);
  expect(await stored(sessionId)).toEqual({ keys: [], alarm: null });
}

describe("a finished live session", () => {
  it("deletes its storage after the grace when the client closed", async () => {
    const { client, session, sessionId } = await startSession();
    client.ws.close(1000, "bye");
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
    await waitForHealth((h) => !h.busy);
    await expectForgottenAfterGrace(sessionId);
  });

  it("deletes its storage after the grace when the stream ended with `end`", async () => {
    const { client, session, sessionId } = await startSession();
    client.send({ type: "end" });
    expect(await session.json()).toEqual({ type: "end" });
    session.send({ type: "ended" });
    expect(await client.closeWithin()).toMatchObject({ code: 1000 });
    await expectForgottenAfterGrace(sessionId);
  });

  it("deletes its storage after the grace when the client went silent (idle timeout)", async () => {
    const { client, sessionId } = await startSession();
    expect(await client.closeWithin(5_000)).toMatchObject({ code: 1001 });
    await expectForgottenAfterGrace(sessionId);
  }, 10_000);
});
