/**
 * Who may create content (content spec, Authentication: "the create endpoints also accept a user JWT or
 * a service key"). User JWTs come from a real identity provider on 127.0.0.1
 * (test/helpers/identity-provider.ts: RS256 keys published as a JWKS, rotated on request) or are signed
 * here with the deployment's HS256 secret; every refusal is a 401 whose error_key names the check.
 */
import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { generateServiceKey } from "../../worker/auth/key-material.ts";
import { verifyUserJwt } from "../../worker/auth/user-jwt.ts";
import { bearer, call, createKey } from "./helpers.ts";

const ISSUER = "https://id.voxedge.test";
const AUDIENCE = "voxedge-content";
const SECRET = "test-jwt-secret-of-at-least-32-characters";
const idp = inject("identityProviderOrigin");
const now = () => Math.floor(Date.now() / 1000);

/** A token the identity provider signs (RS256, its current key unless `key: "unpublished"`). */
async function issued(claims: Record<string, unknown>, key?: string): Promise<string> {
  const response = await fetch(`${idp}/sign`, {
    method: "POST",
    body: JSON.stringify({ claims: { iss: ISSUER, aud: AUDIENCE, exp: now() + 300, ...claims }, key }),
  });
  return ((await response.json()) as { token: string }).token;
}

/** An HS256 token signed with `secret` (the deployment's unless told otherwise). */
function hs256(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300, ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .sign(new TextEncoder().encode(secret));
}

function postNote(credential: string, content: string, headers: Record<string, string> = {}) {
  return call("/v1/notes", {
    method: "POST",
    headers: { ...bearer(credential), "content-type": "application/json", ...headers },
    body: JSON.stringify({ content }),
  });
}

function createSlide(
  credential: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return call("/v2/create/slide", {
    method: "POST",
    headers: { ...bearer(credential), "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ template_id: "slide-clean", ...fields }).toString(),
  });
}

async function noteId(response: Response): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { note_id: string }).note_id;
}

async function expectRefused(credential: string, errorKey: string, status = 401): Promise<void> {
  const response = await postNote(credential, "a note");
  const body = (await response.json()) as { error_key: string; message: string };
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error_key).toBe(errorKey);
}

async function createServiceKey(name: string): Promise<{ id: string; key: string }> {
  const made = await generateServiceKey();
  await db(env).insert(apiKeys).values({
    id: made.id,
    name,
    keyHash: made.hash,
    prefix: made.prefix,
    createdAt: Date.now(),
    kind: "service",
  });
  return { id: made.id, key: made.secret };
}

describe("user JWTs on the content and notes routes", () => {
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    alice = await issued({ sub: "alice" });
    bob = await issued({ sub: "bob" });
  });

  it("lets a user create a note and a deck, follow the task and read the note; another user and an API key get 404", async () => {
    const note = await noteId(await postNote(alice, "Alice's private notes on tides and the moon."));
    const created = await createSlide(alice, { note_id: note });
    expect(created.status, await created.clone().text()).toBe(200);
    const ack = (await created.json()) as { data: { task_id: string; user_id: string } };
    expect(ack.data.user_id).toBe("alice");

    expect(
      (await call(`/v1/create/tasks/${ack.data.task_id}/result`, { headers: bearer(alice) })).status,
    ).toBe(200);
    expect((await call(`/v1/notes/${note}`, { headers: bearer(alice) })).status).toBe(200);
    const list = (await (await call("/v1/notes", { headers: bearer(alice) })).json()) as { total: number };
    expect(list.total).toBe(1);

    const { key } = await createKey();
    for (const other of [bob, key]) {
      expect(
        (await call(`/v1/create/tasks/${ack.data.task_id}/result`, { headers: bearer(other) })).status,
      ).toBe(404);
      expect((await call(`/v1/notes/${note}`, { headers: bearer(other) })).status).toBe(404);
      expect((await createSlide(other, { note_id: note })).status).toBe(404);
    }
  });

  it("accepts an HS256 token signed with the deployment's secret as the same user", async () => {
    const note = await noteId(await postNote(alice, "Made with the RS256 token."));
    expect((await call(`/v1/notes/${note}`, { headers: bearer(await hs256({ sub: "alice" })) })).status).toBe(
      200,
    );
  });

  it("honours a rotated-in key of the issuer's key set", async () => {
    await fetch(`${idp}/rotate`, { method: "POST" });
    const rotated = await issued({ sub: "alice" });
    expect((await postNote(rotated, "signed with the new key")).status).toBe(201);
  });

  it("refuses each failed check with its own error_key", async () => {
    await expectRefused(await issued({ sub: "alice", exp: now() - 120 }), "token_expired");
    await expectRefused(await issued({ sub: "alice", nbf: now() + 600 }), "token_not_yet_valid");
    await expectRefused(await issued({ sub: "alice", iss: "https://evil.example" }), "token_issuer_invalid");
    await expectRefused(await issued({ sub: "alice", aud: "another-app" }), "token_audience_invalid");
    await expectRefused(await issued({}), "token_subject_missing");
    await expectRefused(await issued({ sub: "alice" }, "unpublished"), "token_signing_key_unknown");
    await expectRefused(
      await hs256({ sub: "alice" }, "a-different-secret-of-32-characters!!"),
      "token_signature_invalid",
    );
    // A tampered payload: the signature no longer matches.
    const [header, , signature] = alice.split(".");
    const forged = btoa(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, exp: now() + 300, sub: "bob" }))
      .replaceAll("=", "")
      .replaceAll("+", "-")
      .replaceAll("/", "_");
    await expectRefused(`${header}.${forged}.${signature}`, "token_signature_invalid");
    await expectRefused("not.a.jwt", "token_malformed");
  });

  it("refuses alg none and an HS256 token keyed with the issuer's public key (algorithm confusion)", async () => {
    const encode = (value: object) =>
      btoa(JSON.stringify(value)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");
    const claims = { iss: ISSUER, aud: AUDIENCE, exp: now() + 300, sub: "alice" };
    await expectRefused(
      `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.`,
      "token_algorithm_not_allowed",
    );
    const { keys } = (await (await fetch(`${idp}/jwks.json`)).json()) as { keys: { n: string }[] };
    const publicKeyAsSecret = keys[0]?.n ?? "";
    await expectRefused(await hs256({ sub: "alice" }, publicKeyAsSecret), "token_signature_invalid");
    const pss = (await crypto.subtle.generateKey(
      { name: "RSA-PSS", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    const ps256 = await new SignJWT(claims).setProtectedHeader({ alg: "PS256" }).sign(pss.privateKey);
    await expectRefused(ps256, "token_algorithm_not_allowed");
  });

  it("on a key-set-only setup, refuses an HS256 token whatever it was signed with", async () => {
    const settings = {
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUrl: `${idp}/jwks.json`,
      jwksRefreshMs: 0,
      secret: undefined,
    };
    const { keys } = (await (await fetch(`${idp}/jwks.json`)).json()) as { keys: { n: string }[] };
    for (const secret of [SECRET, keys[0]?.n ?? ""]) {
      expect(await verifyUserJwt(await hs256({ sub: "alice" }, secret), settings)).toMatchObject({
        ok: false,
        refusal: "token_algorithm_not_allowed",
      });
    }
    expect(await verifyUserJwt(await issued({ sub: "alice" }), settings)).toEqual({
      ok: true,
      subject: "alice",
    });
  });

  it("answers a JWT elsewhere as an invalid API key, and a missing credential as unauthorized", async () => {
    expect((await call("/history", { headers: bearer(alice) })).status).toBe(401);
    const response = await call("/v1/notes");
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error_key: string }).error_key).toBe("unauthorized");
  });
});

describe("service keys", () => {
  it("act for each of their users apart, as the user's own JWT would, and for themselves without the header", async () => {
    const service = await createServiceKey("backend");
    const asUser = (user: string) => ({ "x-voxedge-user": user });
    const carol = await noteId(await postNote(service.key, "Carol's note", asUser("carol")));
    const dave = await noteId(await postNote(service.key, "Dave's note", asUser("dave")));
    const own = await noteId(await postNote(service.key, "The backend's own note"));

    const read = (id: string, headers: Record<string, string>, credential = service.key) =>
      call(`/v1/notes/${id}`, { headers: { ...bearer(credential), ...headers } }).then((r) => r.status);
    expect(await read(carol, asUser("carol"))).toBe(200);
    expect(await read(dave, asUser("carol"))).toBe(404);
    expect(await read(carol, {})).toBe(404);
    expect(await read(own, {})).toBe(200);
    expect(await read(own, asUser("carol"))).toBe(404);
    // Carol's own JWT reaches what the service key made for her, and the other way round.
    expect(await read(carol, {}, await issued({ sub: "carol" }))).toBe(200);

    const created = await createSlide(service.key, { note_id: carol }, asUser("carol"));
    expect(created.status).toBe(200);
    expect(((await created.json()) as { data: { user_id: string } }).data.user_id).toBe("carol");
  });

  it("refuses the user header from an API key or a JWT, outside the content routes, and when malformed", async () => {
    const { key } = await createKey();
    const service = await createServiceKey("backend-2");
    const header = { "x-voxedge-user": "carol" };
    for (const credential of [key, await issued({ sub: "alice" })]) {
      const response = await postNote(credential, "x", header);
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error_key: string }).error_key).toBe("user_header_not_allowed");
    }
    expect((await call("/history", { headers: { ...bearer(service.key), ...header } })).status).toBe(403);
    expect((await call("/history", { headers: bearer(service.key) })).status).toBe(200);
    const bad = await postNote(service.key, "x", { "x-voxedge-user": "carol smith" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error_key: string }).error_key).toBe("invalid_user_header");
  });

  it("refuses a webhook on a task made for a user, whose deliveries no key of theirs could sign", async () => {
    const service = await createServiceKey("backend-3");
    const header = { "x-voxedge-user": "erin" };
    const note = await noteId(await postNote(service.key, "Erin's note", header));
    const response = await createSlide(
      service.key,
      { note_id: note, webhook_url: `${inject("fixtureOrigin")}/webhook/200/erin` },
      header,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error_key: string }).error_key).toBe("webhook_needs_api_key");
  });
});
