import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type Transcript, type WhisperModel } from "../../native/index.ts";
import { SENTENCE, speechPcm } from "./audio.ts";
import { microModelPath, sleep } from "./helpers.ts";

let speech: Float32Array;
const models: WhisperModel[] = [];

beforeAll(async () => {
  speech = await speechPcm(SENTENCE);
});
afterAll(() => Promise.all(models.map((m) => m.dispose())));

const view = (t: Transcript) => t.segments.map((s) => [s.start, s.end, s.text, s.tokens.map((k) => k.id)]);
const QUICK = { language: "en", maxTokens: 8, temperatureInc: 0 };

describe("decode threads", () => {
  it("decodes alike when a state's threadpool is remade for other threads between decodes", async () => {
    const m = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    models.push(m);
    const two = await m.transcribe(speech, QUICK);
    const one = await m.transcribe(speech, { ...QUICK, threads: 1 });
    const twoAgain = await m.transcribe(speech, QUICK);
    expect(m.stateStats().created).toBe(1); // one state, its pool remade twice
    expect(view(one)).toEqual(view(two));
    expect(view(twoAgain)).toEqual(view(two));
  });

  it("never touches a remade threadpool after freeing it (glibc poisons freed memory)", async () => {
    // ggml pauses a CPU backend's previous pool when it is given a new one: a pool freed before the
    // state let go of it was locked after its free. Freed memory keeps its bytes, so that went
    // unseen until the allocator reused them (a node decoding two states at once aborted in glibc's
    // mutex code). With the thread cache off and freed bytes overwritten, a touch of the freed pool
    // locks garbage: the child aborts or blocks, and never prints its last line.
    const script = `
      const { loadModel } = await import(${JSON.stringify(path.resolve("native/index.ts"))});
      const pcm = new Float32Array(16000).map((_, i) => Math.sin(i / 10) * 0.1);
      const m = await loadModel(${JSON.stringify(await microModelPath())}, { threads: 3, threadPolicy: "fixed" });
      for (const threads of [1, 2, 3, 1, 3, 2]) await m.transcribe(pcm, { language: "en", maxTokens: 2, temperatureInc: 0, threads });
      await m.dispose();
      console.log("six decodes, the pool remade five times");`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { ...process.env, GLIBC_TUNABLES: "glibc.malloc.tcache_count=0:glibc.malloc.perturb=64" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const [code, signal] = await once(child, "exit");
    clearTimeout(timer);
    expect({ code, signal, out: out.trim() }).toEqual({
      code: 0,
      signal: null,
      out: "six decodes, the pool remade five times",
    });
  }, 40_000);

  it("decodes alike under the adaptive policy, whatever threads it picks", async () => {
    const fixed = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    const adaptive = await loadModel(await microModelPath(), { threads: 2 });
    models.push(fixed, adaptive);
    expect(view(await adaptive.transcribe(speech, QUICK))).toEqual(
      view(await fixed.transcribe(speech, QUICK)),
    );
  });

  it("leaves no thread polling once a decode returns: an idle model uses no CPU", async () => {
    const m = await loadModel(await microModelPath(), { threads: 2, threadPolicy: "fixed" });
    models.push(m);
    for (let i = 0; i < 2; i++) {
      await m.transcribe(speech, QUICK);
      const before = process.cpuUsage();
      await sleep(500);
      const used = process.cpuUsage(before);
      // a ggml worker left polling for the next graph burns ~200 ms of a core here
      expect((used.user + used.system) / 1000).toBeLessThan(60);
    }
  });

  it("refuses an unknown thread policy", async () => {
    const path = await microModelPath();
    await expect(loadModel(path, { threadPolicy: "spin" as "fixed" })).rejects.toThrow(
      /threadPolicy must be 'adaptive' or 'fixed'/,
    );
  });

  it("refuses a platform pid that names no process id", async () => {
    const path = await microModelPath();
    for (const platformPid of [0, -3, 1.5, Number.NaN]) {
      await expect(loadModel(path, { platformPid })).rejects.toThrow(
        /platformPid must be a positive integer/,
      );
    }
  });
});
