/**
 * The request body limits of docs/api.md "Limits": every JSON route refuses a body over its limit with
 * 413 in its service's envelope, before parsing: a declared Content-Length at once (the body is never
 * read), a body without one after reading at most the limit and one chunk. A body within the limit is
 * parsed as usual. Nothing is stored for a refused request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { NOTE_JSON_MAX_BYTES, SMALL_JSON_MAX_BYTES } from "../../worker/middleware/body-limit.ts";
import { expectEnvelope, stored } from "./fuzz-helpers.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { fixtureUrl } from "./ingest-helpers.ts";

const CHUNK = 64 * 1024;

/** JSON routes, their limit, and a valid body to pad. */
const ROUTES = [
  { path: "/transcribe", limit: SMALL_JSON_MAX_BYTES, body: { file_url: fixtureUrl("/audio.mp3") } },
  { path: "/transcribe/object", limit: SMALL_JSON_MAX_BYTES, body: { object_key: "uploads/x/a.mp3" } },
  { path: "/uploads/presign", limit: SMALL_JSON_MAX_BYTES, body: { filename: "a.mp3" } },
  {
    path: "/api/v1/session/create",
    limit: SMALL_JSON_MAX_BYTES,
    body: { language: "en", translate_language: "es" },
  },
  { path: "/v1/notes", limit: NOTE_JSON_MAX_BYTES, body: { content: "A short note." } },
] as const;

/** `total` bytes of JSON-looking text in 64 KiB chunks, counting what the server pulls. */
function counted(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const chunk = new TextEncoder().encode(`{"pad":"${"p".repeat(CHUNK - 9)}`);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      controller.enqueue(chunk.slice());
      sent += chunk.byteLength;
    },
  });
  return { stream, pulled: () => sent };
}

function expectTooLarge(path: string, status: number, body: unknown): void {
  expect(status, path).toBe(413);
  expectEnvelope(path, { status, body, text: JSON.stringify(body), headers: new Headers() }, path);
  const text = JSON.stringify(body);
  expect(text, path).toMatch(/payload_too_large|too large|larger than/i);
}

describe("JSON body limits", () => {
  it("refuses a declared Content-Length over the limit with 413 without reading the body", async () => {
    const { key } = await createKey("limits-declared");
    for (const route of ROUTES) {
      const before = await stored();
      const declared = 16 * 1024 * 1024;
      const body = counted(declared);
      const response = await call(route.path, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json", "content-length": String(declared) },
        body: body.stream,
      });
      expectTooLarge(route.path, response.status, await response.json());
      // only the transport's read-ahead left the client: the route did not consume the 16 MiB
      expect(body.pulled(), route.path).toBeLessThan(route.limit + 4 * CHUNK);
      expect(await stored(), route.path).toEqual(before);
    }
  });

  it("stops reading a body without a length once it passes the limit", async () => {
    const { key } = await createKey("limits-chunked");
    for (const route of ROUTES) {
      const body = counted(16 * 1024 * 1024);
      const response = await call(route.path, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: body.stream,
      });
      expectTooLarge(route.path, response.status, await response.json());
      // at most the limit and the stream's read-ahead, never the 16 MiB sent
      expect(body.pulled(), route.path).toBeLessThanOrEqual(route.limit + 4 * CHUNK);
    }
  });

  it("parses a body just within the limit as usual", async () => {
    const { key } = await createKey("limits-within");
    for (const route of ROUTES) {
      const text = JSON.stringify(route.body);
      const padded = `${text.slice(0, -1)}${" ".repeat(route.limit - text.length)}}`;
      expect(new TextEncoder().encode(padded).byteLength).toBe(route.limit);
      const response = await call(route.path, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: padded,
      });
      expect(response.status, `${route.path}: ${await response.clone().text()}`).not.toBe(413);
      expect(response.status, route.path).toBeLessThan(500);
    }
  });

  it("takes the longest note (100,000 characters), even when JSON escapes every one", async () => {
    const { key } = await createKey("limits-note");
    const content = "é".repeat(100_000);
    const escaped = `{"content":"${"\\u00e9".repeat(100_000)}"}`;
    expect(escaped.length).toBeGreaterThan(SMALL_JSON_MAX_BYTES);
    const response = await call("/v1/notes", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: escaped,
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { char_count: number }).char_count).toBe(content.length);
    const row = await env.DB.prepare(
      "SELECT length(content) AS n FROM notes ORDER BY created_at DESC",
    ).first<{
      n: number;
    }>();
    expect(row?.n).toBe(100_000);
  });

  it("keeps the form limits: /v2/create forms 16 KiB, upload text fields 16 KiB, 32 parts", async () => {
    const { key } = await createKey("limits-forms");
    const form = await call("/v2/create/shorts", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
      body: `note_id=x&pad=${"p".repeat(16 * 1024)}`,
    });
    expect(form.status).toBe(413);
    expect(await form.json()).toMatchObject({ error_key: "payload_too_large" });

    const boundary = "limitsBoundary";
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const file = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\nabcd\r\n`;
    const send = (body: string) =>
      call("/transcribe/upload", {
        method: "POST",
        headers: { ...bearer(key), "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
      });
    const before = await stored();
    const longField = await send(`${file}${part("context", "c".repeat(16 * 1024 + 1))}--${boundary}--`);
    expect(longField.status).toBe(422);
    expect(JSON.stringify(await longField.json())).toMatch(/longer than 16384 bytes/);
    const manyParts = await send(
      `${file}${Array.from({ length: 32 }, (_, i) => part(`f${i}`, "v")).join("")}--${boundary}--`,
    );
    expect(manyParts.status).toBe(422);
    expect(JSON.stringify(await manyParts.json())).toMatch(/more than 32 form parts/);
    expect(await stored()).toEqual(before);
  });
});
