import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { cpuMsBetween, descendantsOf, ProcessTreeCpu } from "../../native/process-tree-cpu.ts";

const SPIN = "for (;;) {}";
/** An idle process whose child spins a core: the shape of wrangler dev and its workerd. */
const IDLE_PARENT_OF_SPINNER = `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(SPIN)}], { stdio: "ignore" }); setInterval(() => {}, 1000);`;

const started: ChildProcess[] = [];
const startedPids: number[] = [];

afterEach(() => {
  for (const pid of startedPids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

function start(script: string): ChildProcess {
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  started.push(child);
  return child;
}

async function treeOf(root: number, size: number): Promise<number[]> {
  for (let i = 0; i < 100; i++) {
    const tree = descendantsOf(root);
    if (tree.length >= size) return tree;
    await sleep(50);
  }
  throw new Error(`process ${root} did not start its child`);
}

describe("ProcessTreeCpu", () => {
  it("counts a spinning grandchild's CPU and no process outside the tree", async () => {
    const root = start(IDLE_PARENT_OF_SPINNER);
    const tree = await treeOf(root.pid!, 2);
    startedPids.push(...tree);
    expect(tree[0]).toBe(root.pid);
    start(SPIN); // a neighbour outside the tree, spinning as hard
    const platform = new ProcessTreeCpu(root.pid!);
    const from = platform.read();
    const startedAt = performance.now();
    await sleep(400);
    const to = platform.read();
    const wall = performance.now() - startedAt;
    const cores = cpuMsBetween(from, to) / wall;
    // the grandchild spins a whole core; beside the neighbour and the tests it gets at least a share
    expect(cores).toBeGreaterThan(0.3);
    // one spinner's worth (10 ms ticks at each end), never the neighbour's too
    expect(cores).toBeLessThan(1.2);
    platform.close();
  });

  it("drops a process that ended without counting its time as negative", async () => {
    const root = start(IDLE_PARENT_OF_SPINNER);
    const tree = await treeOf(root.pid!, 2);
    startedPids.push(...tree);
    const spinner = tree.find((pid) => pid !== root.pid)!;
    const platform = new ProcessTreeCpu(root.pid!);
    await sleep(100);
    const from = platform.read();
    expect(from.has(spinner)).toBe(true);
    process.kill(spinner, "SIGKILL");
    await sleep(100);
    const to = platform.read();
    expect(to.has(spinner)).toBe(false);
    expect(to.has(root.pid!)).toBe(true);
    expect(cpuMsBetween(from, to)).toBeGreaterThanOrEqual(0);
    expect(cpuMsBetween(from, to)).toBeLessThan(50);
    platform.close();
  });
});

describe("cpuMsBetween", () => {
  it("counts each process's growth, and nothing for one first seen in the later reading", () => {
    const from = new Map([
      [10, 1000],
      [11, 200],
    ]);
    // 11 ended; 12 was found by the refresh with a lifetime of CPU behind it
    const to = new Map([
      [10, 1030],
      [12, 5000],
    ]);
    expect(cpuMsBetween(from, to)).toBe(30);
  });
});
