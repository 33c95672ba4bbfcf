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
  // A 1 s key cache, so the revocation bound (2 × AUTH_CACHE_TTL_SEC) is short enough to watch.
  worker = await startLocalWorker({ persistTo: state.dir, vars: { AUTH_CACHE_TTL_SEC: "1" } });
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
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 5_000) {
      status = (await fetch(`${worker.url}/history`, { headers: { "x-api-key": key } })).status;
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
  });

  it("refuses create without a name and revoke of an unknown id", () => {
    expect(() => keys("create")).toThrow(/needs --name/);
    expect(() => keys("revoke", "key_nope")).toThrow(/no active key/);
  });
});
