import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { d1Query, sqlString } from "../../scripts/lib/wrangler.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";

let worker: LocalPlatform;

function keys(...args: string[]): string {
  return execFileSync(
    "node_modules/.bin/tsx",
    ["scripts/keys.ts", ...args, "--persist-to", worker.state.dir],
    {
      encoding: "utf8",
    },
  );
}

beforeAll(async () => {
  // A 1 s key cache, so the revocation bound (2 × AUTH_CACHE_TTL_SEC) is short enough to watch.
  worker = await LocalPlatform.start({ keys: 0, vars: { AUTH_CACHE_TTL_SEC: "1" } });
});

afterAll(async () => {
  await worker?.stop();
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

  it("creates a service key that acts for a user on the notes routes, and lists no user's owner row", async () => {
    const key = keys("create", "--service", "--name", "backend").trim().split("\n").at(-1)!;
    expect(key).toMatch(/^vxs_[A-Za-z0-9_-]{43}$/);
    const made = await fetch(`${worker.url}/v1/notes`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "x-voxedge-user": "u-42",
        "content-type": "application/json",
      },
      body: JSON.stringify({ content: "A note made for user u-42." }),
    });
    expect(made.status).toBe(201);
    const listed = keys("list");
    expect(listed).toMatch(/backend\t.*active/);
    expect(listed).not.toContain("user:u-42");
  });

  it("refuses create without a name and revoke of an unknown id", () => {
    expect(() => keys("create")).toThrow(/needs --name/);
    expect(() => keys("revoke", "key_nope")).toThrow(/no active key/);
  });

  it("shows a key's webhook secret (the same one each time) and rotates it, keeping the previous one", () => {
    const keyId = /created key (\S+)/.exec(keys("create", "--name", "webhook secret test"))?.[1];
    if (!keyId) throw new Error("no key created");
    const lastLine = (out: string) => out.trim().split("\n").at(-1) ?? "";

    const first = lastLine(keys("webhook-secret", keyId));
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(lastLine(keys("webhook-secret", keyId))).toBe(first);

    const rotated = keys("webhook-secret", keyId, "--rotate");
    expect(rotated).toContain("previous one still signs for 24 h");
    const second = lastLine(rotated);
    expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(second).not.toBe(first);
    const [row] = d1Query<{ current: string; previous: string; rotated_at: number }>(
      `SELECT webhook_secret AS current, webhook_secret_previous AS previous, webhook_secret_rotated_at AS rotated_at FROM api_keys WHERE id = ${sqlString(keyId)}`,
      { remote: false, persistTo: worker.state.dir },
    );
    expect(row).toMatchObject({ current: second, previous: first });
    expect(Date.now() - (row?.rotated_at ?? 0)).toBeLessThan(10 * 60_000);
    expect(lastLine(keys("webhook-secret", keyId))).toBe(second);

    expect(() => keys("webhook-secret", "key_nope")).toThrow(/no active key/);
    expect(() => keys("webhook-secret")).toThrow(/usage/);
    keys("revoke", keyId);
    expect(() => keys("webhook-secret", keyId, "--rotate")).toThrow(/no active key/);
  });
});
