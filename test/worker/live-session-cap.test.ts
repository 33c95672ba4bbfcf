/**
 * LIVE_MAX_SESSION_SEC (3 s in this project, vitest.config.mts "workers-session-cap"): a live stream
 * ends at the cap even while its client keeps sending silence, so nobody holds the one-at-a-time /ws
 * gate (or a single-device engine slot) for ever; the client is told why, and the gate frees at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LiveClose } from "../../protocol/live.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";

const CAP_MS = 3_000;
let node: FakeNode | null = null;
const open: TestSocket[] = [];
const timers: ReturnType<typeof setInterval>[] = [];

afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy, 10_000);
});

/** Opens `path`, lets the fake engine in, then sends 100 ms of silence every 100 ms until closed. */
async function silentStream(path: string, key: string): Promise<{ client: TestSocket; openedAt: number }> {
  const { socket, response } = await upgrade(path, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`${path} answered ${response.status}`);
  open.push(socket);
  const openedAt = Date.now();
  await (node as FakeNode).acceptAssignment();
  expect(await socket.json()).toMatchObject({ type: "ready" });
  if (path.startsWith("/api/v1/ws/single"))
    socket.send({ type: "config", language: "en", translate_language: "es" });
  const silence = new ArrayBuffer(3_200);
  timers.push(
    setInterval(() => {
      if (socket.ws.readyState === WebSocket.OPEN) socket.send(silence);
    }, 100),
  );
  return { client: socket, openedAt };
}

/** The messages the client got until its close, and the close. */
async function untilClosed(client: TestSocket): Promise<{ errors: string[]; code: number }> {
  const errors: string[] = [];
  for (;;) {
    try {
      const message = await client.json<{ type: string; message?: string }>(CAP_MS + 8_000);
      if (message.type === "error") errors.push(message.message ?? "");
    } catch {
      break; // closed (or nothing more came)
    }
  }
  return { errors, code: (await client.closeWithin(1_000)).code };
}

describe("LIVE_MAX_SESSION_SEC", { timeout: 40_000 }, () => {
  it("closes a /ws session that streams silence at the cap (4410, after an error saying why) and frees the gate", async () => {
    node = await FakeNode.connect("cap-engine", 2);
    const { key } = await createKey("cap-mic");
    const { client, openedAt } = await silentStream("/ws?language=en", key);
    await waitForHealth((h) => h.busy);

    const { errors, code } = await untilClosed(client);
    expect(code).toBe(LiveClose.maxDuration);
    expect(errors).toEqual(["the session reached its maximum length (3 s): connect again to go on"]);
    // never before the cap (the upper side is load-dependent, so only the lower bound is asserted)
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(CAP_MS);
    await waitForHealth((h) => !h.busy, 5_000);

    // the gate is free: the next session is served
    const next = await silentStream("/ws?language=en", key);
    expect(next.client.closedWith).toBeNull();
  });

  it("closes a single-device session at the cap too", async () => {
    node = await FakeNode.connect("cap-single-engine", 2);
    const { key } = await createKey("cap-single");
    const { client } = await silentStream("/api/v1/ws/single", key);
    expect((await untilClosed(client)).code).toBe(LiveClose.maxDuration);
  });
});
