import { execFileSync } from "node:child_process";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { identifiedLogger } from "../../inference-node/node-identity.ts";
import { NodeTokenRefusedError, WorkerClient } from "../../inference-node/worker-client.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";

let worker: LocalPlatform;

function nodes(...args: string[]): string {
  return execFileSync(
    "node_modules/.bin/tsx",
    ["scripts/nodes.ts", ...args, "--persist-to", worker.state.dir],
    {
      encoding: "utf8",
    },
  );
}

/** How the Worker answers a node's hub socket: "open", or the refused upgrade's status. */
function dialHub(token: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${worker.url.replace("http", "ws")}/internal/v1/live/node`, {
      headers: { authorization: `Bearer ${token}` },
    });
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_request, response) => resolve(String(response.statusCode)));
    ws.once("error", (error) => resolve(error.message));
  });
}

beforeAll(async () => {
  // No NODE_TOKEN: only per-node tokens open the node routes. A 1 s auth cache, so the revocation
  // bound (2 × AUTH_CACHE_TTL_SEC) is short enough to watch.
  worker = await LocalPlatform.start({
    keys: 0,
    withoutNodeToken: true,
    vars: { AUTH_CACHE_TTL_SEC: "1" },
  });
});

afterAll(async () => {
  await worker?.stop();
});

describe("npm run nodes", () => {
  it("creates a node token (printed alone on the last line) that the running Worker accepts, then revokes it", async () => {
    const out = nodes("create", "--name", "gpu-cli").trim().split("\n");
    const token = out.at(-1)!;
    expect(token).toMatch(/^vxn_[A-Za-z0-9_-]{43}$/);

    const listed = nodes("list");
    const row = listed.split("\n").find((line) => line.includes("gpu-cli"))!;
    expect(row).toContain("active");
    expect(listed).not.toContain(token);
    const id = row.split("\t")[0]!;
    expect(id).toMatch(/^node_/);

    const previews = `${worker.url}/internal/v1/previews`;
    const headers = { authorization: `Bearer ${token}` };
    expect((await fetch(previews, { headers })).status).toBe(200);
    expect(await dialHub(token)).toBe("open");
    // A node token is no API key.
    expect((await fetch(`${worker.url}/history`, { headers })).status).toBe(401);

    expect(nodes("revoke", id)).toContain(`revoked ${id}`);
    expect(nodes("list")).toMatch(new RegExp(`${id}.*revoked`));
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 10_000) {
      // A kept-alive connection that wrangler dev closed while the CLI ran fails once; ask again.
      status = await fetch(previews, { headers }).then(
        (response) => response.status,
        () => 0,
      );
      if (status !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
    expect(await dialHub(token)).toBe("401");
  });

  it("refuses create without a name and revoke of an unknown id", () => {
    expect(() => nodes("create")).toThrow(/needs --name/);
    expect(() => nodes("revoke", "node_nope")).toThrow(/no active node/);
  });
});

describe("the node's name in its own logs", () => {
  /** A node logger writing its JSON lines into an array, as the node's pino logger writes them to stdout. */
  function capturedLogger() {
    const lines: Record<string, unknown>[] = [];
    const base = pino({ name: "inference-node" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    return { base, lines };
  }

  it("asks the running Worker who it is, logs `node identity: NAME` once, and carries `node` on every later line", async () => {
    const token = nodes("create", "--name", "gpu-logs").trim().split("\n").at(-1)!;
    const { base, lines } = capturedLogger();
    const { identity, logger } = await identifiedLogger(new WorkerClient(worker.url, token), base);
    expect(identity.name).toBe("gpu-logs");
    expect(identity.id).toMatch(/^node_/);
    logger.info({ task_id: "t1" }, "pulling work");
    logger.child({ session_id: "s1" }).warn("live: assigned");
    // A Worker slow to answer under load may cost a retry first (a warning without a name): the
    // identity line and everything after it carry the name.
    const named = lines.slice(lines.findIndex((line) => line.msg === "node identity: gpu-logs"));
    expect(named.map((line) => line.msg)).toEqual([
      "node identity: gpu-logs",
      "pulling work",
      "live: assigned",
    ]);
    for (const line of named) expect(line).toMatchObject({ node: "gpu-logs" });
    expect(named[0]).toMatchObject({ node_identity_id: identity.id });
    expect(named[2]).toMatchObject({ session_id: "s1" });
  });

  it("stops the start at once when the Worker refuses the token", async () => {
    const { base, lines } = capturedLogger();
    const client = new WorkerClient(worker.url, `vxn_${"A".repeat(43)}`);
    await expect(identifiedLogger(client, base)).rejects.toBeInstanceOf(NodeTokenRefusedError);
    expect(lines).toEqual([]);
  });
});
