/**
 * Per-node identities: a node's own token (`vxn_…`, made by `npm run nodes -- create`) opens every
 * /internal route and node socket, names the node on its leases and in the request log, and stops
 * working everywhere within 2 × AUTH_CACHE_TTL_SEC of its revocation. The shared NODE_TOKEN works only
 * while it is set; node tokens never open public routes.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { db } from "../../platform/db.ts";
import { nodeIdentities } from "../../platform/schema.ts";
import { app } from "../../worker/app.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";
import {
  bearer,
  call,
  createKey,
  createNode,
  dispatcherStub,
  NODE_TOKEN,
  resetDispatcher,
  submitTranscription,
} from "./helpers.ts";
import { NODE_HTTP_ROUTES, NODE_SOCKET_ROUTES } from "./node-routes.ts";

/** A request through the app under a changed environment (the auth cache's TTL, NODE_TOKEN unset). */
async function fetchWith(changed: Env, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://voxedge.test${path}`, init), changed, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** The status of every node route for this token; an opened socket is closed again. */
async function nodeRouteStatuses(changed: Env, token: string): Promise<Map<string, number>> {
  const statuses = new Map<string, number>();
  for (const route of NODE_HTTP_ROUTES) {
    const response = await fetchWith(changed, route.path, {
      method: route.method,
      headers: { ...bearer(token), "content-type": "application/json" },
      body: route.body,
    });
    await response.body?.cancel();
    statuses.set(`${route.method} ${route.path}`, response.status);
  }
  for (const path of NODE_SOCKET_ROUTES) {
    const response = await fetchWith(changed, path, { headers: { ...bearer(token), upgrade: "websocket" } });
    if (response.webSocket) {
      response.webSocket.accept();
      response.webSocket.close(1000, "test done");
    }
    statuses.set(`socket ${path}`, response.status);
  }
  return statuses;
}

const refusedEverywhere = (statuses: Map<string, number>) => [...statuses.values()].every((s) => s === 401);

beforeEach(async () => {
  await resetDispatcher();
});

describe("per-node tokens", () => {
  it("open every /internal route and node socket", async () => {
    const { token } = await createNode("gpu-1");
    for (const [route, status] of await nodeRouteStatuses(env, token)) expect(status, route).not.toBe(401);
  });

  it("are refused on every /internal route and node socket within 2 × AUTH_CACHE_TTL_SEC of revocation", async () => {
    const ttlOneSecond = { ...env, AUTH_CACHE_TTL_SEC: "1" };
    const { id, token } = await createNode("gpu-revoked");
    for (const [route, status] of await nodeRouteStatuses(ttlOneSecond, token)) {
      expect(status, route).not.toBe(401);
    }
    await db(env).update(nodeIdentities).set({ revokedAt: Date.now() }).where(eq(nodeIdentities.id, id));
    const revokedAt = Date.now();
    let statuses = await nodeRouteStatuses(ttlOneSecond, token);
    while (!refusedEverywhere(statuses) && Date.now() - revokedAt < 2_500) {
      await new Promise((r) => setTimeout(r, 100));
      statuses = await nodeRouteStatuses(ttlOneSecond, token);
    }
    expect(Object.fromEntries(statuses)).toEqual(
      Object.fromEntries([...statuses.keys()].map((route) => [route, 401])),
    );
  });

  it("are refused at once after revocation with the cache off", async () => {
    const noCache = { ...env, AUTH_CACHE_TTL_SEC: "0" };
    const { id, token } = await createNode("gpu-uncached");
    expect((await fetchWith(noCache, "/internal/v1/previews", { headers: bearer(token) })).status).toBe(200);
    await db(env).update(nodeIdentities).set({ revokedAt: Date.now() }).where(eq(nodeIdentities.id, id));
    const refused = await fetchWith(noCache, "/internal/v1/previews", { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "unauthorized" });
  });

  it("work without NODE_TOKEN, which is accepted only while it is set", async () => {
    const unset = { ...env, NODE_TOKEN: "" };
    const { token } = await createNode("gpu-only");
    expect((await fetchWith(unset, "/internal/v1/previews", { headers: bearer(token) })).status).toBe(200);
    expect((await fetchWith(unset, "/internal/v1/previews", { headers: bearer(NODE_TOKEN) })).status).toBe(
      401,
    );
    expect((await fetchWith(env, "/internal/v1/previews", { headers: bearer(NODE_TOKEN) })).status).toBe(200);
  });

  it("never open public routes, and API keys never open node routes", async () => {
    const { token } = await createNode("gpu-public");
    const { key } = await createKey("not-a-node");
    for (const secret of [token, NODE_TOKEN]) {
      for (const headers of [bearer(secret), { "x-api-key": secret }]) {
        expect((await call("/history", { headers })).status).toBe(401);
        expect((await call("/v1/models", { headers })).status).toBe(401);
      }
    }
    expect((await call("/internal/v1/previews", { headers: bearer(key) })).status).toBe(401);
  });

  it("name the node on the leases it takes", async () => {
    const { token } = await createNode("gpu-leaser");
    const owner = await createKey();
    await submitTranscription(owner.id);
    const response = await call("/internal/v1/lease", {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: JSON.stringify({ node: NODE_HEALTH, capacity: 1, wait_ms: 0 }),
    });
    expect(response.status).toBe(200);
    const { leases } = (await response.json()) as { leases: { lease_id: string }[] };
    expect(leases).toHaveLength(1);
    const lease = await dispatcherStub().lookup(leases[0]!.lease_id);
    expect(lease).toMatchObject({ node_name: "gpu-leaser", node_id: NODE_HEALTH.node_id });
  });

  it("are told their own identity by GET /internal/v1/whoami (the shared token is `shared`)", async () => {
    const { id, token } = await createNode("gpu-whoami");
    const own = await call("/internal/v1/whoami", { headers: bearer(token) });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ id, name: "gpu-whoami" });
    const shared = await call("/internal/v1/whoami", { headers: bearer(NODE_TOKEN) });
    expect(await shared.json()).toEqual({ id: "shared", name: "shared" });
  });

  it("name the node on the log line of a call that failed (the shared token logs as `shared`)", async () => {
    const { token } = await createNode("gpu-logged");
    const log = vi.spyOn(console, "log");
    try {
      const json = { "content-type": "application/json" };
      const own = await call("/internal/v1/translate", {
        method: "POST",
        headers: { ...bearer(token), ...json },
        body: "{",
      });
      const shared = await call("/internal/v1/translate", {
        method: "POST",
        headers: { ...bearer(NODE_TOKEN), ...json },
        body: "{}",
      });
      expect([own.status, shared.status]).toEqual([422, 422]);
      const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      const translateLines = lines.filter((l) => l.path === "/internal/v1/translate");
      expect(translateLines).toMatchObject([
        { node: "gpu-logged", status: 422 },
        { node: "shared", status: 422 },
      ]);
    } finally {
      log.mockRestore();
    }
  });

  it("write no line for a node's call that succeeded, and one for every public request", async () => {
    // a fleet's lease polls, heartbeats and progress would be several lines a task, and one per node
    // every few seconds
    const { token } = await createNode("gpu-quiet");
    const { key } = await createKey("log-public");
    const log = vi.spyOn(console, "log");
    try {
      expect((await call("/internal/v1/previews", { headers: bearer(token) })).status).toBe(200);
      expect((await call("/v1/models", { headers: bearer(key) })).status).toBe(200);
      const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
      expect(lines.filter((l) => l.path === "/internal/v1/previews")).toEqual([]);
      expect(lines.filter((l) => l.path === "/v1/models")).toHaveLength(1);
    } finally {
      log.mockRestore();
    }
  });
});
