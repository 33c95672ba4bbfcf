import { describe, expect, it } from "vitest";
import {
  issuerOfLease,
  knownSchedulers,
  LEGACY_DISPATCHER_NAME,
  leaseIdFor,
  MAX_POOLS_PER_ASK,
  schedulerName,
  schedulerOfTask,
  schedulersOfAsk,
} from "../../platform/dispatch-routing.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

const DEFAULT = "whisper-base";

describe("schedulerOfTask", () => {
  it("puts a transcription in its model's speech pool, every render in the render pool", () => {
    expect(schedulerOfTask({ kind: "transcribe", params: { model_id: "whisper-small" } }, DEFAULT)).toEqual({
      workClass: "speech",
      pool: "whisper-small",
    });
    expect(schedulerOfTask({ kind: "transcribe", params: {} }, DEFAULT).pool).toBe(DEFAULT);
    for (const kind of ["shorts", "quiz_video", "slide"] as const) {
      expect(schedulerName(schedulerOfTask({ kind, params: {} }, DEFAULT))).toBe("render:render");
    }
  });
});

describe("schedulersOfAsk", () => {
  it("asks one speech pool per ready model, the render pool for render kinds, nothing else", () => {
    const node = { ...NODE_HEALTH, models_ready: ["a", "b", "a", ""] };
    expect(schedulersOfAsk({ node, kinds: ["transcribe"] }, DEFAULT).map(schedulerName)).toEqual([
      "speech:a",
      "speech:b",
    ]);
    expect(schedulersOfAsk({ node, kinds: ["slide", "shorts"] }, DEFAULT).map(schedulerName)).toEqual([
      "render:render",
    ]);
  });

  it("falls back to an older node's asr_model, then the registry default", () => {
    const older = { ...NODE_HEALTH, models_ready: [], asr_model: "whisper-small" };
    expect(schedulersOfAsk({ node: older, kinds: ["transcribe"] }, DEFAULT)[0]?.pool).toBe("whisper-small");
    const bare = { ...older, asr_model: "" };
    expect(schedulersOfAsk({ node: bare, kinds: ["transcribe"] }, DEFAULT)[0]?.pool).toBe(DEFAULT);
  });

  it("waits on at most MAX_POOLS_PER_ASK speech pools", () => {
    const node = { ...NODE_HEALTH, models_ready: Array.from({ length: 50 }, (_, i) => `m${i}`) };
    expect(schedulersOfAsk({ node, kinds: ["transcribe"] }, DEFAULT)).toHaveLength(MAX_POOLS_PER_ASK);
  });
});

describe("lease ids", () => {
  it("name their issuer; a bare id is the old single scheduler's, anything else no one's", () => {
    const issuer = "ab".repeat(32);
    expect(issuerOfLease(leaseIdFor(issuer))).toEqual({ id: issuer });
    expect(issuerOfLease(crypto.randomUUID())).toEqual({ name: LEGACY_DISPATCHER_NAME });
    expect(issuerOfLease(`xyz.${crypto.randomUUID()}`)).toBeNull();
    expect(issuerOfLease(`${"AB".repeat(32)}.${crypto.randomUUID()}`)).toBeNull();
    expect(leaseIdFor(issuer).length).toBeLessThanOrEqual(128);
  });
});

describe("knownSchedulers", () => {
  it("lists each registry model's speech pool and the render pool", () => {
    expect(knownSchedulers(["a", "b"]).map(schedulerName)).toEqual(["speech:a", "speech:b", "render:render"]);
  });
});
