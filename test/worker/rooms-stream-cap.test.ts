/**
 * LIVE_MAX_SESSION_SEC (3 s in this project, vitest.config.mts "workers-session-cap") caps a room
 * speaker's engine stream too: a participant who never goes quiet (a tone) does not hold the creator
 * key's stream slot for ever. The engine is asked to finish at the cap, the speaker is told why, and
 * the slot is let go once the engine says it ended.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, pcmFrame, until } from "./rooms-helpers.ts";

const CAP_MS = 3_000;
let node: FakeNode | null = null;
const open: TestSocket[] = [];
const timers: ReturnType<typeof setInterval>[] = [];

afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded, 10_000);
});

/** The engine's next text message, skipping the relayed audio. */
async function nextText(session: TestSocket, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const frame = await session.next(Math.max(1, deadline - Date.now()));
    if (typeof frame === "string") return JSON.parse(frame) as Record<string, unknown>;
  }
}

describe("a room speaker's stream at LIVE_MAX_SESSION_SEC", { timeout: 40_000 }, () => {
  it("asks the engine to finish at the cap while the speaker is still loud, tells the speaker, lets the slot go", async () => {
    node = await FakeNode.connect("room-cap-engine", 1);
    const { key } = await createKey("room-cap");
    const id = await newSession(key);
    const speaker = await join(id, { language: "en", client_id: "tone-speaker" });
    open.push(speaker.socket);
    const tone = pcmFrame(true);
    speaker.socket.send(tone);
    timers.push(
      setInterval(() => {
        if (speaker.socket.ws.readyState === WebSocket.OPEN) speaker.socket.send(tone);
      }, 100),
    );
    const { session } = await node.acceptAssignment();
    const joinedAt = Date.now();
    expect(await nextText(session, 3_000)).toMatchObject({ type: "config" });

    expect(await nextText(session, CAP_MS + 8_000)).toEqual({ type: "end" });
    // never before the cap (the upper side is load-dependent, so only the lower bound is asserted)
    expect(Date.now() - joinedAt).toBeGreaterThanOrEqual(CAP_MS - 100);
    expect((await until(speaker.socket, "error", 5_000)).found).toEqual({
      type: "error",
      code: "max_duration",
      message: "your speech stream reached its maximum length (3 s): it was ended; speak again to go on",
    });
    session.send({ type: "ended" });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
  });
});
