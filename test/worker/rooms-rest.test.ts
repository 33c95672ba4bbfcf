import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../worker/errors.ts";
import { languagesFrom } from "../../worker/translation/languages.ts";
import { createSession } from "../../worker/translation/sessions.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { TestNode } from "./node-client.ts";

/** The translation REST API through the Worker's real fetch handler: sessions, languages, errors. */

let key: string;
beforeAll(async () => {
  key = (await createKey("rooms-rest")).key;
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function create(body: unknown, headers: Record<string, string> = bearer(key)): Promise<Response> {
  return call("/api/v1/session/create", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("POST /api/v1/session/create", () => {
  it("creates a conversation (UUID v4) with a join link, and its details read back normalised", async () => {
    const response = await create({ language: "English", translate_language: "es-MX" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { conversation_id: string; join_url: string };
    expect(body.conversation_id).toMatch(UUID_V4);
    expect(body.join_url).toBe(`http://voxedge.test/join/${body.conversation_id}`);

    // reading a session needs no key: the conversation id is the capability
    const details = await call(`/api/v1/session/${body.conversation_id}`);
    expect(details.status).toBe(200);
    expect(await details.json()).toEqual({ user_a_lang: "en", user_a_translate: "es" });
  });

  it("needs an API key, and answers errors as {error, code}", async () => {
    const missing = await create({ language: "en", translate_language: "es" }, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: "missing API key: send Authorization: Bearer <key> or x-api-key",
      code: "unauthorized",
    });
    expect((await create({ language: "en", translate_language: "es" }, { "x-api-key": key })).status).toBe(
      200,
    );
  });

  it("refuses unsupported languages (400) and malformed bodies (422), naming the field", async () => {
    const klingon = await create({ language: "en", translate_language: "Klingon" });
    expect(klingon.status).toBe(400);
    expect(await klingon.json()).toEqual({
      error: 'unsupported translate_language "Klingon"',
      code: "bad_request",
    });
    const auto = await create({ language: "auto", translate_language: "es" });
    expect(await auto.json()).toMatchObject({ error: 'unsupported language "auto"' });

    const missing = await create({ language: "en" });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toMatchObject({
      code: "validation_error",
      error: expect.stringMatching(/^translate_language: /),
    });
    expect((await create({ language: "en", translate_language: "es", extra: 1 })).status).toBe(422);
    const broken = await create("{not json");
    expect(broken.status).toBe(422);
    expect(await broken.json()).toMatchObject({ code: "validation_error" });
  });

  it("rate-limits session creation per key with Retry-After", async () => {
    const { key: busy } = await createKey("busy");
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      statuses.push((await create({ language: "en", translate_language: "es" }, bearer(busy))).status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    const limited = await create({ language: "en", translate_language: "es" }, bearer(busy));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await limited.json()).toMatchObject({ code: "rate_limited" });
    // another key is not affected
    expect((await create({ language: "en", translate_language: "es" })).status).toBe(200);
  });

  it("answers 503 when the session store cannot be reached", async () => {
    const broken = {
      ...env,
      TRANSLATION_ROOM: {
        idFromName: (name: string) => env.TRANSLATION_ROOM.idFromName(name),
        get: () => ({
          create: () => Promise.reject(new Error("Durable Object is overloaded")),
        }),
      },
    } as unknown as Env;
    const error = await createSession(
      broken,
      "http://x",
      { language: "en", translate_language: "es" },
      "key_1",
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, message: "the session store is unavailable; try again" });
  });
});

describe("GET /api/v1/session/{conversation_id}", () => {
  it("is 404 for an unknown or malformed conversation id", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid", "00000000-0000-0000-0000-000000000000"]) {
      const response = await call(`/api/v1/session/${id}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: "conversation not found or expired",
        code: "not_found",
      });
    }
  });
});

describe("GET /join/{conversation_id} (the join link, opened by anything)", () => {
  const CLIENTS: Record<string, Record<string, string>> = {
    curl: { "user-agent": "curl/8.5.0", accept: "*/*" },
    "a link preview": { "user-agent": "Slackbot-LinkExpanding 1.0", accept: "*/*" },
    "a QR scanner's fetch": {},
    "a browser": { "sec-fetch-mode": "navigate", accept: "text/html" },
  };

  it("answers the console page to any GET of a live room", async () => {
    const { conversation_id } = (await (
      await create({ language: "en", translate_language: "es" })
    ).json()) as {
      conversation_id: string;
    };
    for (const [client, headers] of Object.entries(CLIENTS)) {
      const page = await call(`/join/${conversation_id}`, { headers });
      expect(page.status, client).toBe(200);
      expect(page.headers.get("content-type"), client).toMatch(/^text\/html/);
      expect(await page.text(), client).toContain('<div id="app">');
    }
    const head = await call(`/join/${conversation_id}`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });

  it("answers the console page with 404 and readable 'this conversation has ended' words for an unknown room", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      for (const [client, headers] of Object.entries(CLIENTS)) {
        const page = await call(`/join/${id}`, { headers });
        expect(page.status, client).toBe(404);
        expect(page.headers.get("content-type"), client).toMatch(/^text\/html/);
        const text = await page.text();
        expect(text, client).toContain("<title>This conversation has ended · Voxedge</title>");
        expect(text, client).toMatch(
          /<div id="app"><h1>This conversation has ended<\/h1><p>[^<]+<\/p><\/div>/,
        );
        expect(text, client).not.toContain(id); // nothing of the path is echoed back
      }
    }
  });
});

describe("GET /api/v1/languages", () => {
  it("is 503 while no node translates, then lists what the nodes translate between, with the defaults", async () => {
    const before = await call("/api/v1/languages");
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({
      error: "no translation engine is connected; try again later",
      code: "service_unavailable",
    });

    const node = new TestNode({
      node_id: "mt-node",
      asr_loaded: true,
      asr_model: "whisper-base",
      models_ready: ["whisper-base"],
      gpu_free_gb: 0,
      mt_loaded: true,
      mt_model: "apertium",
      mt_pairs: [
        ["en", "es"],
        ["es", "en"],
        ["es", "xx"], // a code the API does not know: left out
      ],
    });
    await node.lease(1, 0);
    const response = await call("/api/v1/languages");
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      supported_languages: [
        ["en", "English"],
        ["es", "Spanish"],
      ],
      default_source: "en",
      default_target: "es",
      translation_pairs: [
        ["en", "es"],
        ["es", "en"],
      ],
    });
    expect(body.asr_languages).toHaveLength(100);
    expect(body.asr_languages).toContainEqual(["vi", "Vietnamese"]);
    expect(await (await call("/health")).json()).toMatchObject({ mt_loaded: true, mt_model: "apertium" });
  });

  it("falls back to a pair the deployment offers when the configured defaults are not one", () => {
    const view = languagesFrom(
      [
        {
          mt_loaded: true,
          mt_pairs: [
            ["vi", "en"],
            ["en", "vi"],
          ],
        },
        { mt_loaded: false, mt_pairs: [["en", "fr"]] },
      ],
      { source: "en", target: "es" },
    );
    expect(view).toMatchObject({ default_source: "en", default_target: "vi" });
    expect(view?.supported_languages).toEqual([
      ["en", "English"],
      ["vi", "Vietnamese"],
    ]);
    expect(languagesFrom([{ mt_loaded: false, mt_pairs: [] }], { source: "en", target: "es" })).toBeNull();
  });
});

describe("the /api/v1 error envelope", () => {
  it("renders unknown routes and upgrades without Upgrade as {error, code}", async () => {
    const unknown = await call("/api/v1/nope");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "no such route", code: "not_found" });
    const plain = await call(`/api/v1/ws/${crypto.randomUUID()}?language=en`);
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({
      code: "bad_request",
      error: expect.stringMatching(/WebSocket/),
    });
  });
});
