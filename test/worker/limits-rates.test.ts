/**
 * The per-key rate limits of docs/api.md "Limits": every route that creates something on behalf of a
 * key (tasks, uploads, notes, content renders) shares one budget (ENQUEUE_LIMITER, 60 a minute); the
 * real-time translation sessions have their own (SESSION_LIMITER, 30 a minute). Over it: 429 with
 * Retry-After in the route's own envelope, nothing stored; other keys are unaffected.
 */
import { describe, expect, it } from "vitest";
import { expectEnvelope, stored } from "./fuzz-helpers.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { fixtureUrl, postJson } from "./ingest-helpers.ts";

const form = (fields: Record<string, string>) => {
  const body = new FormData();
  body.append("file", new File([new Uint8Array(64).fill(1)], "a.wav", { type: "audio/wav" }));
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
};

/** Every create route, with a request that would otherwise be accepted (or at least validated). */
const CREATE_ROUTES: { path: string; init: (key: string) => RequestInit }[] = [
  { path: "/transcribe", init: (key) => json(key, { file_url: fixtureUrl("/audio.mp3") }) },
  { path: "/transcribe/object", init: (key) => json(key, { object_key: "uploads/x/a.mp3" }) },
  { path: "/transcribe/upload", init: (key) => ({ method: "POST", headers: bearer(key), body: form({}) }) },
  { path: "/uploads/presign", init: (key) => json(key, { filename: "a.mp3" }) },
  {
    path: "/v1/audio/transcriptions",
    init: (key) => ({ method: "POST", headers: bearer(key), body: form({ model: "whisper-1" }) }),
  },
  {
    path: "/v1/audio/translations",
    init: (key) => ({ method: "POST", headers: bearer(key), body: form({ model: "whisper-1" }) }),
  },
  { path: "/v1/notes", init: (key) => json(key, { content: "A note." }) },
  ...["shorts", "quiz-video", "slide"].map((route) => ({
    path: `/v2/create/${route}`,
    init: (key: string): RequestInit => ({
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
      body: "note_id=n&voice_id=v&template_id=t",
    }),
  })),
];

function json(key: string, body: unknown): RequestInit {
  return {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

describe("per-key create limit (ENQUEUE_LIMITER: 60 a minute, shared by every create route)", () => {
  it("answers 429 with Retry-After on every create route once the key used its minute, storing nothing", async () => {
    const { key } = await createKey("limits-create");
    for (let i = 0; i < 60; i++) {
      const response = await postJson("/uploads/presign", key, { filename: `part-${i}.mp3` });
      expect(response.status, `request ${i + 1}`).toBe(200);
    }
    const before = await stored();
    for (const route of CREATE_ROUTES) {
      const response = await call(route.path, route.init(key));
      const text = await response.text();
      expect(response.status, `${route.path}: ${text}`).toBe(429);
      expect(response.headers.get("retry-after"), route.path).toBe("60");
      expectEnvelope(
        route.path,
        { status: 429, body: JSON.parse(text), text, headers: response.headers },
        route.path,
      );
      expect(text, route.path).toMatch(/rate|too many/i);
    }
    expect(await stored()).toEqual(before);
    // another key still has its own budget
    const other = await createKey("limits-create-other");
    expect((await call("/v1/notes", json(other.key, { content: "Mine." }))).status).toBe(201);
  });
});

describe("per-key session limit (SESSION_LIMITER: 30 a minute)", () => {
  it("answers the 31st POST /api/v1/session/create of a minute with 429 and Retry-After", async () => {
    const { key } = await createKey("limits-sessions");
    const create = () =>
      call("/api/v1/session/create", json(key, { language: "en", translate_language: "es" }));
    for (let i = 0; i < 30; i++) expect((await create()).status, `session ${i + 1}`).toBe(200);
    const limited = await create();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await limited.json()).toMatchObject({ code: "rate_limited", error: expect.any(String) });
  });
});
