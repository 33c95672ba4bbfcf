/**
 * The node-token routes (/internal/v1/*: leases, sources, outputs, previews, translation, and the
 * live hub, live session and room stream sockets) answer only the NODE_TOKEN: anonymous calls, valid
 * API keys in every place a key can go, wrong or padded tokens and other schemes are 401 before
 * anything runs (no upgrade, no lease, nothing stored). The token itself is compared in constant time.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { stored } from "./fuzz-helpers.ts";
import { bearer, call, createKey, NODE_TOKEN } from "./helpers.ts";
import { NODE_HTTP_ROUTES as HTTP_ROUTES, NODE_SOCKET_ROUTES as SOCKET_ROUTES } from "./node-routes.ts";

let apiKey: string;

beforeAll(async () => {
  apiKey = (await createKey("not-a-node")).key;
});

/** Every way a caller without the node token might try. */
const impostors = (): { name: string; headers: Record<string, string>; query?: string }[] => [
  { name: "anonymous", headers: {} },
  { name: "API key as Bearer", headers: bearer(apiKey) },
  { name: "API key as x-api-key", headers: { "x-api-key": apiKey } },
  { name: "API key as api_key query", headers: {}, query: `?api_key=${encodeURIComponent(apiKey)}` },
  { name: "wrong token", headers: { authorization: "Bearer not-the-node-token" } },
  { name: "unknown per-node token", headers: bearer(`vxn_${"A".repeat(43)}`) },
  { name: "token with a suffix", headers: { authorization: `Bearer ${NODE_TOKEN}x` } },
  { name: "token prefix", headers: { authorization: `Bearer ${NODE_TOKEN.slice(0, -1)}` } },
  { name: "token as Basic", headers: { authorization: `Basic ${btoa(`node:${NODE_TOKEN}`)}` } },
  { name: "token as x-api-key", headers: { "x-api-key": NODE_TOKEN } },
  { name: "token twice", headers: { authorization: `Bearer ${NODE_TOKEN} ${NODE_TOKEN}` } },
];

describe("node-token routes refuse everyone else", () => {
  it("answers every HTTP route with 401 for anonymous callers, API keys and wrong tokens, storing nothing", async () => {
    const before = await stored();
    for (const route of HTTP_ROUTES) {
      for (const who of impostors()) {
        const response = await call(`${route.path}${who.query ?? ""}`, {
          method: route.method,
          headers: { ...who.headers, "content-type": "application/json" },
          body: route.body,
        });
        const label = `${route.method} ${route.path} (${who.name})`;
        expect(response.status, label).toBe(401);
        expect(await response.json(), label).toMatchObject({ code: "unauthorized" });
      }
    }
    expect(await stored()).toEqual(before);
  });

  it("refuses the internal sockets (live hub, live session, room stream) before any upgrade", async () => {
    for (const path of SOCKET_ROUTES) {
      for (const who of impostors()) {
        const response = await call(`${path}${who.query ?? ""}`, {
          headers: { ...who.headers, upgrade: "websocket" },
        });
        const label = `${path} (${who.name})`;
        expect(response.status, label).toBe(401);
        expect(response.webSocket, label).toBeNull();
      }
    }
  });

  it("lets the node token through (the refusals above are about the caller, not the route)", async () => {
    const lease = await call("/internal/v1/lease", {
      method: "POST",
      headers: { ...bearer(NODE_TOKEN), "content-type": "application/json" },
      body: "{}",
    });
    expect(lease.status).toBe(422); // authenticated; the empty body is what is wrong
    const previews = await call("/internal/v1/previews", { headers: bearer(NODE_TOKEN) });
    expect(previews.status).toBe(200);
  });

  it("compares the token in constant time (crypto.subtle.timingSafeEqual over equal-length digests)", async () => {
    const compare = vi.spyOn(crypto.subtle, "timingSafeEqual");
    try {
      await call("/internal/v1/previews", { headers: bearer("a-wrong-token-of-another-length") });
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0] ?? [];
      expect((a as ArrayBuffer).byteLength).toBe(32);
      expect((b as ArrayBuffer).byteLength).toBe(32);
    } finally {
      compare.mockRestore();
    }
    expect(env.NODE_TOKEN).toBe(NODE_TOKEN);
  });
});
