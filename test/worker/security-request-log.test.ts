/**
 * Query strings are never logged: a socket's `api_key` or `token` (and any other query value) stays out
 * of the request log, whatever the route answers. Nor are path segments that are themselves secrets
 * (a media object key, a signed PUT's object key, a conversation id): the log has a short hash instead.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { app } from "../../worker/app.ts";
import { generateServiceKey } from "../../worker/auth/key-material.ts";
import { createKey } from "./helpers.ts";

afterEach(() => vi.restoreAllMocks());

/** The log lines (console.log, .warn, .error) written while the app answers `path`. */
async function logsOf(path: string, headers: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(capture);
  const ctx = createExecutionContext();
  await app.fetch(new Request(`http://voxedge.test${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  vi.restoreAllMocks();
  return lines;
}

describe("the request log", () => {
  it("logs the path of a socket handshake without its query string (key, token or anything else)", async () => {
    const { key } = await createKey("log-redaction");
    const cases = [
      `/ws?language=en&api_key=${key}`, // accepted key, no upgrade: 400
      "/ws?token=vxt1.key_x.live.9999999999.nonce.sig", // refused token: 401
      `/api/v1/ws/single?api_key=${key}&marker=q-secret`,
      "/history?limit=5&marker=q-secret", // a REST route without a key: 401
      "/no-such-route?marker=q-secret", // 404
    ];
    for (const path of cases) {
      const lines = await logsOf(path, { upgrade: path.includes("api_key") ? "" : "websocket" });
      const requestLines = lines.filter((line) => line.includes('"request_id"'));
      expect(requestLines, path).toHaveLength(1);
      expect(JSON.parse(requestLines[0] as string).path, path).toBe(new URL(path, "http://x").pathname);
      for (const line of lines) {
        expect(line, path).not.toContain("?");
        expect(line, path).not.toContain(key);
        expect(line, path).not.toContain("q-secret");
        expect(line, path).not.toContain("vxt1");
      }
    }
  });
});

/** What the request log writes for a secret segment: the first 12 hex digits of its SHA-256. */
async function shortHash(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `sha256:${hex.slice(0, 12)}`;
}

describe("capability paths in the request log", () => {
  it("logs a short hash in place of a media key, a signed PUT's key or a conversation id, on any answer", async () => {
    const conversation = crypto.randomUUID();
    const stream = crypto.randomUUID();
    const objectKey = `uploads/${crypto.randomUUID()}/clip.mp3`;
    const outputKey = `outputs/${crypto.randomUUID()}/${crypto.randomUUID()}/short.mp4`;
    const cases: [path: string, logged: string, secrets: string[]][] = [
      [`/media/${objectKey}`, `/media/${await shortHash(objectKey)}`, [objectKey]],
      [`/media/${outputKey}`, `/media/${await shortHash(outputKey)}`, [outputKey]],
      [
        `/uploads/put/${objectKey}?expires=1&sig=x`,
        `/uploads/put/${await shortHash(objectKey)}`,
        [objectKey],
      ],
      [
        `/api/v1/ws/${conversation}?language=en`,
        `/api/v1/ws/${await shortHash(conversation)}`,
        [conversation],
      ],
      [`/api/v1/session/${conversation}`, `/api/v1/session/${await shortHash(conversation)}`, [conversation]],
      [`/join/${conversation}`, `/join/${await shortHash(conversation)}`, [conversation]],
      [
        `/internal/v1/rooms/${conversation}/streams/${stream}`,
        `/internal/v1/rooms/${await shortHash(conversation)}/streams/${await shortHash(stream)}`,
        [conversation, stream],
      ],
    ];
    for (const [path, logged, secrets] of cases) {
      const lines = await logsOf(path, { upgrade: "websocket" });
      const requestLines = lines.filter((line) => line.includes('"request_id"'));
      expect(requestLines, path).toHaveLength(1);
      expect(JSON.parse(requestLines[0] as string).path, path).toBe(logged);
      for (const line of lines) for (const secret of secrets) expect(line, path).not.toContain(secret);
    }
    // route names in those places are not secrets: they stay readable
    for (const path of ["/api/v1/ws/single", "/api/v1/session/create"]) {
      const [line] = (await logsOf(path)).filter((l) => l.includes('"request_id"'));
      expect(JSON.parse(line as string).path).toBe(path);
    }
  });

  it("records a service key's action for a user with both ids, and never the key itself", async () => {
    const made = await generateServiceKey();
    await db(env).insert(apiKeys).values({
      id: made.id,
      name: "backend",
      keyHash: made.hash,
      prefix: made.prefix,
      createdAt: Date.now(),
      kind: "service",
    });
    const lines = await logsOf("/v1/notes", {
      authorization: `Bearer ${made.secret}`,
      "x-voxedge-user": "u-77",
    });
    const acting = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.event === "service_key_acting");
    expect(acting).toEqual([
      expect.objectContaining({ service_key_id: made.id, user_id: "u-77", method: "GET" }),
    ]);
    const request = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((l) => l.request_id && l.status);
    expect(request).toMatchObject({ status: 200, key_id: made.id, user_id: "u-77" });
    for (const line of lines) expect(line).not.toContain(made.secret);
  });
});
