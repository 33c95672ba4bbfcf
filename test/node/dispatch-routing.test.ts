import { describe, expect, it } from "vitest";
import {
  issuerOfLease,
  knownSchedulers,
  LEGACY_DISPATCHER_NAME,
  leaseIdFor,
  MAX_POOLS_PER_ASK,
  partitionOf,
  STEAL_SAMPLES,
  schedulerName,
  schedulerOfTask,
  schedulersOfAsk,
} from "../../platform/dispatch-routing.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

const DEFAULT = "whisper-base";

describe("schedulerOfTask", () => {
  it("puts a transcription in its model's speech pool, every render in the render pool", () => {
    expect(
      schedulerOfTask(
        { kind: "transcribe", params: { model_id: "whisper-small" }, owner_key_id: null },
        DEFAULT,
      ),
    ).toEqual({
      workClass: "speech",
      pool: "whisper-small",
    });
    expect(schedulerOfTask({ kind: "transcribe", params: {}, owner_key_id: null }, DEFAULT).pool).toBe(
      DEFAULT,
    );
    for (const kind of ["shorts", "quiz_video", "slide"] as const) {
      expect(schedulerName(schedulerOfTask({ kind, params: {}, owner_key_id: null }, DEFAULT))).toBe(
        "render:render",
      );
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

describe("partitions (DISPATCHER_PARTITIONS > 1)", () => {
  const transcription = (owner: string | null) => ({
    kind: "transcribe" as const,
    params: {},
    owner_key_id: owner,
  });

  it("put a key's speech tasks in its partition, named after the pool; rendering stays one object", () => {
    const key = schedulerOfTask(transcription("key-a"), DEFAULT, 4);
    expect(key).toEqual({ workClass: "speech", pool: DEFAULT, partition: partitionOf("key-a", 4) });
    expect(schedulerName(key)).toBe(`speech:${DEFAULT}#${partitionOf("key-a", 4)}`);
    expect(schedulerOfTask({ ...transcription("key-a"), params: { model_id: "m" } }, DEFAULT, 4)).toEqual({
      ...key,
      pool: "m",
    });
    expect(
      schedulerName(schedulerOfTask({ kind: "slide", params: {}, owner_key_id: "key-a" }, DEFAULT, 4)),
    ).toBe("render:render");
    expect(schedulerOfTask(transcription(null), DEFAULT, 4).partition).toBe(partitionOf("", 4));
  });

  it("spread keys over every partition", () => {
    const used = new Set(Array.from({ length: 200 }, (_, i) => partitionOf(`key-${i}`, 4)));
    expect([...used].sort()).toEqual([0, 1, 2, 3]);
  });

  it("ask the node's home partition only, with two others sampled anew on each ask to steal from", () => {
    const node = { ...NODE_HEALTH, node_id: "node-7", models_ready: ["a"] };
    const home = partitionOf("node-7", 4);
    const others = [0, 1, 2, 3].filter((p) => p !== home);
    const pairs = new Set<string>();
    for (const draw of [0, 0.34, 0.67, 0.99]) {
      const asked = schedulersOfAsk({ node, kinds: ["transcribe"] }, DEFAULT, 4, () => draw);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ workClass: "speech", pool: "a", partition: home });
      const sampled = asked[0]?.sampled ?? [];
      expect(sampled).toHaveLength(STEAL_SAMPLES);
      expect(new Set(sampled).size).toBe(STEAL_SAMPLES);
      for (const p of sampled) expect(others).toContain(p);
      pairs.add([...sampled].sort().join());
    }
    expect(pairs.size).toBeGreaterThan(1);
    // With two partitions the one other is all there is to sample.
    expect(schedulersOfAsk({ node, kinds: ["transcribe"] }, DEFAULT, 2)[0]?.sampled).toEqual([
      1 - partitionOf("node-7", 2),
    ]);
    expect(schedulersOfAsk({ node, kinds: ["slide"] }, DEFAULT, 4)).toEqual([
      { workClass: "render", pool: "render", sampled: [] },
    ]);
  });

  it("are listed for /health's fleet, and one partition keeps the names of before", () => {
    expect(knownSchedulers(["a"], 2).map(schedulerName)).toEqual([
      "speech:a#0",
      "speech:a#1",
      "render:render",
    ]);
    expect(knownSchedulers(["a"], 1).map(schedulerName)).toEqual(["speech:a", "render:render"]);
    expect(schedulersOfAsk({ node: NODE_HEALTH, kinds: ["transcribe"] }, DEFAULT, 1)[0]).toMatchObject({
      sampled: [],
    });
  });
});
