import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalWorker, startLocalWorker, tempState } from "../helpers/local-stack.ts";

const state = tempState();
let worker: LocalWorker;

function keys(...args: string[]): string {
  return execFileSync("node_modules/.bin/tsx", ["scripts/keys.ts", ...args, "--persist-to", state.dir], {
    encoding: "utf8",
  });
}

beforeAll(async () => {
  worker = await startLocalWorker({ persistTo: state.dir });
});

afterAll(async () => {
  await worker?.stop();
  state.remove();
});

describe("npm run keys", () => {
  it("creates a key (printed alone on the last line) that the running Worker accepts, then revokes it", async () => {
    const out = keys("create", "--name", "cli test").trim().split("\n");
    const key = out.at(-1)!;
    expect(key).toMatch(/^vx_[A-Za-z0-9_-]{43}$/);

    const listed = keys("list");
    const row = listed.split("\n").find((line) => line.includes("cli test"))!;
    expect(row).toContain("active");
    expect(listed).not.toContain(key);
    const id = row.split("\t")[0]!;

    const ok = await fetch(`${worker.url}/history`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);

    expect(keys("revoke", id)).toContain(`revoked ${id}`);
    expect(keys("list")).toMatch(new RegExp(`${id}.*revoked`));
    const refused = await fetch(`${worker.url}/history`, { headers: { "x-api-key": key } });
    expect(refused.status).toBe(401);
  });

  it("refuses create without a name and revoke of an unknown id", () => {
    expect(() => keys("create")).toThrow(/needs --name/);
    expect(() => keys("revoke", "key_nope")).toThrow(/no active key/);
  });
});
