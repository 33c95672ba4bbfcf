import { describe, expect, it } from "vitest";
import { readClientFrame } from "../../durable-objects/live/client-input.ts";
import {
  checkTimeouts,
  FLUSH_TIMEOUT_MS,
  JOIN_TIMEOUT_MS,
} from "../../durable-objects/live/session-timeouts.ts";
import { LIVE_MAX_FRAME_BYTES } from "../../protocol/live.ts";

const IDLE = 10_000;
const LIMITS = { idleTimeoutMs: IDLE, maxSessionMs: 7_200_000 };
const base = { now: 0, clientOpenedAt: 0, lastClientFrameAt: 0, endingSince: null, nodeJoinedAt: 0 };

describe("live session clocks", () => {
  it("lets a streaming session run", () => {
    expect(checkTimeouts({ ...base, now: 60_000, lastClientFrameAt: 59_000 }, LIMITS)).toBeNull();
  });

  it("ends a session whose client sent nothing for the idle timeout (1001)", () => {
    expect(checkTimeouts({ ...base, now: IDLE + 1, lastClientFrameAt: 0 }, LIMITS)).toMatchObject({
      code: 1001,
    });
    expect(checkTimeouts({ ...base, now: IDLE, lastClientFrameAt: 0 }, LIMITS)).toBeNull();
  });

  it("counts idle time only from `ready` (the node joining): before that the join timeout rules", () => {
    const waiting = { ...base, nodeJoinedAt: null, lastClientFrameAt: null, now: JOIN_TIMEOUT_MS - 1 };
    expect(checkTimeouts(waiting, { ...LIMITS, idleTimeoutMs: 1_000 })).toBeNull();
    const lateJoin = { ...base, lastClientFrameAt: null, nodeJoinedAt: 2_500, now: 3_000 };
    expect(checkTimeouts(lateJoin, { ...LIMITS, idleTimeoutMs: 1_000 })).toBeNull();
  });

  it("gives up on an engine that never dials in (1011), and on a client that never arrives", () => {
    const noNode = { ...base, nodeJoinedAt: null, now: JOIN_TIMEOUT_MS + 1 };
    expect(checkTimeouts(noNode, LIMITS)).toMatchObject({
      code: 1011,
      error: expect.stringMatching(/did not join/),
    });
    const noClient = { ...base, clientOpenedAt: null, lastClientFrameAt: null, now: JOIN_TIMEOUT_MS + 1 };
    expect(checkTimeouts(noClient, LIMITS)).toMatchObject({ code: 1000 });
  });

  it("waits for the last finals after `end`, but not forever", () => {
    const ending = { ...base, endingSince: 1_000, lastClientFrameAt: 1_000 };
    expect(checkTimeouts({ ...ending, now: IDLE + 5_000 }, LIMITS)).toBeNull(); // no idle timeout while flushing
    expect(checkTimeouts({ ...ending, now: 1_001 + FLUSH_TIMEOUT_MS }, LIMITS)).toMatchObject({ code: 1011 });
  });

  it("ends a session at LIVE_MAX_SESSION_SEC however busy its client is (4410), counted from its connect", () => {
    const capped = { ...LIMITS, maxSessionMs: 60_000 };
    expect(checkTimeouts({ ...base, now: 59_999, lastClientFrameAt: 59_990 }, capped)).toBeNull();
    expect(checkTimeouts({ ...base, now: 60_000, lastClientFrameAt: 59_990 }, capped)).toEqual({
      code: 4410,
      reason: "maximum session length reached",
      error: "the session reached its maximum length (60 s): connect again to go on",
    });
    // a flush under way gets its own bounded time to deliver the last finals
    const ending = { ...base, now: 61_000, endingSince: 59_000, lastClientFrameAt: 59_000 };
    expect(checkTimeouts(ending, capped)).toBeNull();
  });
});

describe("client frames", () => {
  it("classifies audio, control, mistakes and oversize frames", () => {
    expect(readClientFrame(new ArrayBuffer(640))).toMatchObject({ kind: "audio" });
    expect(readClientFrame(new ArrayBuffer(LIVE_MAX_FRAME_BYTES + 1))).toMatchObject({
      kind: "close",
      code: 1009,
    });
    expect(readClientFrame(new ArrayBuffer(5))).toMatchObject({ kind: "error" });
    expect(readClientFrame('{"type":"end"}')).toEqual({ kind: "control", message: { type: "end" } });
    expect(readClientFrame('{"type":"config","language":"Vietnamese"}')).toEqual({
      kind: "control",
      message: { type: "config", language: "vi" },
    });
    expect(readClientFrame('{"type":"config"}')).toMatchObject({ kind: "error", message: /language/ });
    expect(readClientFrame("x".repeat(5000))).toMatchObject({ kind: "error", message: /longer than/ });
  });
});
