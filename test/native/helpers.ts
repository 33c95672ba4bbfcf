import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";

/** The cached micro model (width 64, one layer): loads in ~0.2 s, decodes in ~0.1 s. */
export const microModelPath = (): Promise<string> => ensureSyntheticModel("micro");

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The temp directories this test file made. */
const made: string[] = [];
// Registered as the test file imports this module: an afterAll called from inside a hook or a test
// (where tempDir is called) is never run, and every folder was left behind.
afterAll(() => Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

/** A temp directory removed after the file's tests. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `voxedge-${prefix}-`));
  made.push(dir);
  return dir;
}

/** The settled rejection of `p` (fails the test if it resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error("expected the promise to reject");
}
