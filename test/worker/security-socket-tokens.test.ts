/**
 * Short-lived socket tokens (POST /v1/auth/tokens): what a browser puts in `?token=` instead of its
 * API key. A token opens only the socket of its scope, only until it expires, only while its key is
 * live, and never a REST route; a token altered in any field is refused.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { app } from "../../worker/app.ts";
import { signFields } from "../../worker/auth/hmac-signature.ts";
import { bearer, call, createKey, UPLOAD_SIGNING_SECRET } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";

let node: FakeNode | null = null;
const open: TestSocket[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function mint(key: string, body: unknown): Promise<Response> {
  return call("/v1/auth/tokens", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function mintToken(key: string, scope: "live" | "translate", expiresIn?: number): Promise<string> {
  const response = await mint(key, { scope, ...(expiresIn !== undefined && { expires_in: expiresIn }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Upgrades with `?token=` only (no key header); the socket, or the HTTP refusal's status. */
async function dialWithToken(
  path: string,
  token: string,
): Promise<{ socket: TestSocket | null; status: number }> {
  const { socket, response } = await upgrade(`${path}?token=${encodeURIComponent(token)}`);
  if (socket) open.push(socket);
  return { socket, status: response.status };
}

/** A token in the wire format, signed with the test deployment's secret: what a forger would need. */
async function craftToken(keyId: string, scope: string, expiresAtSec: number): Promise<string> {
  const nonce = "AAAAAAAAAAAAAAAA";
  const signature = await signFields(UPLOAD_SIGNING_SECRET, [
    "socket-token-v1",
    keyId,
    scope,
    expiresAtSec,
    nonce,
  ]);
  return `vxt1.${keyId}.${scope}.${expiresAtSec}.${nonce}.${signature}`;
}

describe("POST /v1/auth/tokens", () => {
  it("answers {token, expires_in}: 60 s by default, or the expires_in asked for", async () => {
    const { key } = await createKey("tokens");
    const byDefault = await mint(key, { scope: "live" });
    expect(byDefault.status).toBe(200);
    const body = (await byDefault.json()) as { token: string; expires_in: number };
    expect(body.expires_in).toBe(60);
    expect(body.token).toMatch(/^vxt1\./);
    expect(body.token).not.toContain(key);
    const asked = (await (await mint(key, { scope: "translate", expires_in: 600 })).json()) as {
      expires_in: number;
    };
    expect(asked.expires_in).toBe(600);
  });

  it("refuses a bad scope or expires_in with 422, and a call without a key with 401", async () => {
    const { key } = await createKey("tokens-422");
    for (const body of [
      {},
      { scope: "rest" },
      { scope: "live", expires_in: 9 },
      { scope: "live", expires_in: 601 },
      { scope: "live", expires_in: 30.5 },
      { scope: "live", expires_in: "60" },
      { scope: "live", extra: true },
    ]) {
      expect((await mint(key, body)).status, JSON.stringify(body)).toBe(422);
    }
    const anonymous = await call("/v1/auth/tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scope: "live" }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("does not mint a token from a token", async () => {
    const { key } = await createKey("token-chain");
    const token = await mintToken(key, "live");
    expect((await mint(token, { scope: "live" })).status).toBe(401);
  });
});

describe("a socket token", () => {
  it("opens /ws only with scope live and /api/v1/ws/single only with scope translate", async () => {
    node = await FakeNode.connect("token-engine", 2);
    const { key } = await createKey("token-scopes");
    const live = await mintToken(key, "live");
    const translate = await mintToken(key, "translate");

    expect((await dialWithToken("/ws", translate)).status).toBe(401);
    expect((await dialWithToken("/api/v1/ws/single", live)).status).toBe(401);

    const mic = await dialWithToken("/ws", live);
    expect(mic.socket).not.toBeNull();
    await node.acceptAssignment();
    expect(await mic.socket?.json()).toMatchObject({ type: "ready" });

    const single = await dialWithToken("/api/v1/ws/single", translate);
    expect(single.socket).not.toBeNull();
    await node.acceptAssignment();
    expect(await single.socket?.json()).toMatchObject({ type: "ready" });
  });

  it("counts against its key's live streams (LIVE_MAX_STREAMS_PER_KEY)", async () => {
    node = await FakeNode.connect("token-limit-engine", 4);
    const { key } = await createKey("token-limit");
    const token = await mintToken(key, "translate");
    for (let i = 0; i < 2; i++) {
      const { socket } = await dialWithToken("/api/v1/ws/single", token);
      await node.acceptAssignment();
      expect(await socket?.json()).toMatchObject({ type: "ready" });
    }
    const third = await dialWithToken("/api/v1/ws/single", token);
    expect(await third.socket?.json()).toMatchObject({ type: "error" });
    expect((await third.socket?.closeWithin())?.code).toBe(4429);
  });

  it("is refused once expired", async () => {
    const { id } = await createKey("token-expiry");
    const now = Math.floor(Date.now() / 1000);
    // the same claims, a minute ahead and a second behind: only the clock decides
    const fresh = await craftToken(id, "translate", now + 60);
    const expired = await craftToken(id, "translate", now - 1);
    node = await FakeNode.connect("expiry-engine", 2);
    const accepted = await dialWithToken("/api/v1/ws/single", fresh);
    expect(accepted.socket).not.toBeNull();
    await node.acceptAssignment();
    expect(await accepted.socket?.json()).toMatchObject({ type: "ready" });
    const refused = await dialWithToken("/api/v1/ws/single", expired);
    expect(refused.status).toBe(401);
  });

  it("is refused when any part of it was altered", async () => {
    const { key } = await createKey("token-tamper");
    const other = await createKey("token-tamper-other");
    const token = await mintToken(key, "translate");
    const [tag, keyId, scope, exp, nonce, signature] = token.split(".") as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const flip = (text: string) => (text.endsWith("A") ? `${text.slice(0, -1)}B` : `${text.slice(0, -1)}A`);
    const altered = [
      [tag, other.id, scope, exp, nonce, signature], // another key's id
      [tag, keyId, "live", exp, nonce, signature], // another scope
      [tag, keyId, scope, String(Number(exp) + 3600), nonce, signature], // a later expiry
      [tag, keyId, scope, exp, flip(nonce), signature],
      [tag, keyId, scope, exp, nonce, flip(signature)],
      [tag, keyId, scope, exp, nonce, ""],
      ["vxt2", keyId, scope, exp, nonce, signature],
    ].map((parts) => parts.join("."));
    for (const forged of [...altered, `${token}.x`, token.slice(0, -1), "vxt1", ""]) {
      const path = forged.split(".")[2] === "live" ? "/ws" : "/api/v1/ws/single";
      expect((await dialWithToken(path, forged)).status, forged).toBe(401);
    }
  });

  it("is refused with a signature spelt another way that decodes to the same bytes", async () => {
    // 32 bytes are 43 base64url characters: the last one's low 2 bits are padding, so `…A` and `…B`
    // (or any pair differing only there) decode alike. Accepting both let an altered token through.
    const { key } = await createKey("token-padding");
    const token = await mintToken(key, "translate");
    const parts = token.split(".");
    const signature = parts[5] ?? "";
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(signature.at(-1) ?? "A");
    const twin = alphabet[last ^ 1] ?? "A"; // same 4 significant bits, another padding bit
    parts[5] = `${signature.slice(0, -1)}${twin}`;
    expect((await dialWithToken("/api/v1/ws/single", parts.join("."))).status).toBe(401);
  });

  it("is refused once its key is revoked", async () => {
    const { id, key } = await createKey("token-revoked");
    const token = await mintToken(key, "live");
    await db(env).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id));
    // with the key cache off the revocation counts at once (with it on, within 2 × AUTH_CACHE_TTL_SEC)
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request(`http://voxedge.test/ws?token=${encodeURIComponent(token)}`, {
        headers: { upgrade: "websocket" },
      }),
      { ...env, AUTH_CACHE_TTL_SEC: "0" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(401);
  });

  it("never opens a REST route, as Authorization or x-api-key", async () => {
    const { key } = await createKey("token-rest");
    const token = await mintToken(key, "live");
    expect((await call("/history", { headers: bearer(token) })).status).toBe(401);
    expect((await call("/history", { headers: { "x-api-key": token } })).status).toBe(401);
    expect((await call("/v1/models", { headers: bearer(token) })).status).toBe(401);
    expect((await call(`/history?token=${encodeURIComponent(token)}`)).status).toBe(401);
  });

  it("is taken from ?token= only: a token in a header of /ws is refused", async () => {
    const { key } = await createKey("token-header");
    const token = await mintToken(key, "live");
    const { response } = await upgrade("/ws", bearer(token));
    expect(response.status).toBe(401);
  });
});
