import { describe, expect, it } from "vitest";
import { type KeyLine, nextTurn, placeInLine } from "../../durable-objects/dispatcher/fair-rotation.ts";
import { TurnIndex } from "../../durable-objects/dispatcher/turn-index.ts";

/** The grant rule as plain functions: who goes next, and the exact place it gives every waiting task. */

type Lane = "interactive" | "batch";
const LANES: Lane[] = ["interactive", "batch"];

interface Key {
  owner: string;
  running: number;
  lastServed: number;
  tasks: { lane: Lane; seq: number }[];
}

function lines(keys: Key[], lane: Lane): KeyLine[] {
  return keys.flatMap((key) => {
    const waiting = key.tasks.filter((task) => task.lane === lane);
    if (waiting.length === 0) return [];
    const firstSeq = Math.min(...waiting.map((task) => task.seq));
    return [
      {
        owner: key.owner,
        running: key.running,
        lastServed: key.lastServed,
        firstSeq,
        waiting: waiting.length,
      },
    ];
  });
}

/** Grants every waiting task one by one with the rule (as the Dispatcher does, no task ending): their seqs in order. */
function grantAll(start: Key[], served: number): number[] {
  const keys = start.map((key) => ({ ...key, tasks: [...key.tasks] }));
  const order: number[] = [];
  let counter = served;
  for (;;) {
    const lane = LANES.find((l) => keys.some((key) => key.tasks.some((task) => task.lane === l)));
    if (!lane) return order;
    const turn = nextTurn(lines(keys, lane))!;
    const key = keys.find((k) => k.owner === turn.owner)!;
    const next = key.tasks.filter((task) => task.lane === lane).sort((a, b) => a.seq - b.seq)[0]!;
    key.tasks = key.tasks.filter((task) => task !== next);
    key.running += 1;
    key.lastServed = ++counter;
    order.push(next.seq);
  }
}

/** placeInLine for every waiting task, in the order of those places. */
function placesByRule(keys: Key[], served: number): number[] {
  const placed: { seq: number; place: number | null }[] = [];
  for (const key of keys) {
    for (const task of key.tasks) {
      const laneLines = LANES.slice(0, LANES.indexOf(task.lane) + 1).map((lane) => lines(keys, lane));
      const rank = key.tasks.filter((t) => t.lane === task.lane && t.seq < task.seq).length;
      placed.push({ seq: task.seq, place: placeInLine(laneLines, key.owner, rank, served) });
    }
  }
  const places = placed.map((p) => p.place);
  expect(new Set(places).size).toBe(places.length);
  return placed.sort((a, b) => a.place! - b.place!).map((p) => p.seq);
}

/** A small deterministic generator (mulberry32), so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the grant rule", () => {
  it("serves the key with the fewest running, then the one served longest ago, then the oldest task", () => {
    const turn = (owner: string, running: number, lastServed: number, firstSeq: number) => ({
      owner,
      running,
      lastServed,
      firstSeq,
    });
    expect(nextTurn([turn("a", 3, 0, 1), turn("b", 1, 9, 2)])?.owner).toBe("b");
    expect(nextTurn([turn("a", 2, 5, 1), turn("b", 2, 4, 2)])?.owner).toBe("b");
    expect(nextTurn([turn("a", 0, 0, 7), turn("b", 0, 0, 3)])?.owner).toBe("b");
    expect(nextTurn([])).toBeNull();
  });

  it("lets a lone key take every slot, and gives the next ones to a newcomer until it holds its share", () => {
    const keys: Key[] = [
      { owner: "a", running: 4, lastServed: 4, tasks: [5, 6, 7].map((seq) => ({ lane: "batch", seq })) },
      { owner: "b", running: 0, lastServed: 0, tasks: [8, 9, 10].map((seq) => ({ lane: "batch", seq })) },
    ];
    // b runs 0, 1, 2, 3 after its grants: all three go before a's next.
    expect(grantAll(keys, 4)).toEqual([8, 9, 10, 5, 6, 7]);
    expect(placesByRule(keys, 4)).toEqual([8, 9, 10, 5, 6, 7]);
  });

  it("gives every waiting task the place the rule serves it at, across lanes, keys and running counts", () => {
    const next = random(19);
    for (let round = 0; round < 400; round++) {
      const keys: Key[] = [];
      let seq = 0;
      let served = 0;
      const keyCount = 1 + Math.floor(next() * 4);
      for (let k = 0; k < keyCount; k++) {
        // Some keys were never served (lastServed 0, ties broken by their oldest task).
        const lastServed = next() < 0.3 ? 0 : ++served;
        keys.push({ owner: `k${k}`, running: Math.floor(next() * 4), lastServed, tasks: [] });
      }
      const taskCount = Math.floor(next() * 12);
      for (let t = 0; t < taskCount; t++) {
        const key = keys[Math.floor(next() * keys.length)]!;
        key.tasks.push({ lane: next() < 0.3 ? "interactive" : "batch", seq: ++seq });
      }
      served += Math.floor(next() * 3);
      expect(placesByRule(keys, served), `round ${round}`).toEqual(grantAll(keys, served));
    }
  });

  it("the Dispatcher's in-memory index serves and places every task as the rule does, through grants", () => {
    const next = random(23);
    for (let round = 0; round < 300; round++) {
      const keys: Key[] = [];
      let seq = 0;
      let served = 0;
      const keyCount = 1 + Math.floor(next() * 5);
      for (let k = 0; k < keyCount; k++) {
        const lastServed = next() < 0.3 ? 0 : ++served;
        keys.push({ owner: `k${k}`, running: Math.floor(next() * 4), lastServed, tasks: [] });
      }
      const taskCount = Math.floor(next() * 14);
      for (let t = 0; t < taskCount; t++) {
        const key = keys[Math.floor(next() * keys.length)]!;
        key.tasks.push({ lane: next() < 0.3 ? "interactive" : "batch", seq: ++seq });
      }
      served += Math.floor(next() * 3);
      const running = new Map(keys.map((key) => [key.owner, key.running]));
      const index = new TurnIndex({ running: (owner) => running.get(owner) ?? 0 });
      index.restoreServes(
        served,
        keys.filter((key) => key.lastServed > 0).map((key) => [key.owner, key.lastServed]),
      );
      for (const key of keys)
        for (const task of key.tasks)
          index.add({
            seq: task.seq,
            task_id: `t${task.seq}`,
            owner: key.owner,
            lane: task.lane,
            kind: "transcribe",
            attempts: 0,
          });
      const expected = grantAll(keys, served);
      // Every place at once, from the index's snapshot ...
      const places = index.places(["transcribe"]);
      const order = [...places].sort((a, b) => a[1] - b[1]).map(([id]) => Number(id.slice(1)));
      expect(order, `round ${round}`).toEqual(expected);
      // ... one at a time from the rule's closed form ...
      for (const [id, place] of places)
        expect(index.placeOf(id, ["transcribe"]), `round ${round} ${id}`).toBe(place);
      // ... and the grants themselves, one at a time, as the Dispatcher makes them.
      const granted: number[] = [];
      let counter = served;
      for (let pick = index.peek(["transcribe"]); pick; pick = index.peek(["transcribe"])) {
        granted.push(pick.task.seq);
        index.remove(pick.task.task_id);
        index.markServed(pick.task, ++counter);
        running.set(pick.task.owner, (running.get(pick.task.owner) ?? 0) + 1);
        index.runningChanged(pick.task.owner);
      }
      expect(granted, `round ${round}`).toEqual(expected);
    }
  });
});
