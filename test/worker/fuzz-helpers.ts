/**
 * The harness of the Worker fuzz tests: send a generated request through the real fetch handler and
 * check what every refusal owes a client: a 4xx in the service's own error envelope (never a 5xx),
 * an answer within a bound (never a hung request), and nothing stored (no task, note, upload record,
 * idempotency claim or R2 object).
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { expect } from "vitest";
import { call, createKey } from "./helpers.ts";

/** Longest a refused request may take before it counts as hung. */
const ANSWER_WITHIN_MS = 10_000;

export interface FuzzRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

/** Rows and objects a request could leave behind. */
export interface Stored {
  jobs: number;
  notes: number;
  uploads: number;
  idempotency: number;
  objects: number;
}

export async function stored(): Promise<Stored> {
  const rows = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM jobs) AS jobs, (SELECT count(*) FROM notes) AS notes,
            (SELECT count(*) FROM uploads) AS uploads, (SELECT count(*) FROM idempotency_keys) AS idempotency`,
  ).first<Omit<Stored, "objects">>();
  const listed = await env.MEDIA.list({ limit: 1000 });
  return { ...(rows as Omit<Stored, "objects">), objects: listed.objects.length };
}

/** Sends the request; fails the test (naming it) when no answer comes within the bound. */
export async function send(request: FuzzRequest): Promise<Answer> {
  const pending = call(request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  }).then(async (response) => {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    return { status: response.status, body, text, headers: response.headers };
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${describe(request)}`)),
      ANSWER_WITHIN_MS,
    );
  });
  try {
    return await Promise.race([pending, hung]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

export function describe(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ""
      : typeof request.body === "string"
        ? request.body.slice(0, 300)
        : `<${request.body.byteLength} bytes>`;
  return `${request.method} ${request.path} ${JSON.stringify(request.headers ?? {})} ${body}`;
}

const CONTENT_PREFIXES = [
  "/v1/notes",
  "/v1/voices",
  "/v1/backgrounds",
  "/v1/templates",
  "/v1/catalog",
  "/v1/create",
  "/v2/create",
];

/** Which error envelope a path's service answers in (docs/api.md). */
export function envelopeOf(path: string): "default" | "openai" | "content" | "translation" {
  const pathname = path.split("?")[0] ?? path;
  if (CONTENT_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`))) {
    return "content";
  }
  if (pathname.startsWith("/v1/") || pathname === "/v1") return "openai";
  if (pathname.startsWith("/api/v1/") || pathname === "/api/v1") return "translation";
  return "default";
}

/** Asserts an error answer is in its service's envelope, with a readable message. */
export function expectEnvelope(path: string, answer: Answer, context: string): void {
  const body = answer.body as Record<string, unknown> | null;
  expect(body, `${context}: error body is not JSON: ${answer.text.slice(0, 200)}`).not.toBeNull();
  switch (envelopeOf(path)) {
    case "content":
      expect(body, context).toMatchObject({
        error: expect.any(String),
        error_key: expect.any(String),
        message: expect.any(String),
      });
      return;
    case "openai":
      expect(body, context).toMatchObject({
        error: { message: expect.any(String), type: expect.any(String) },
      });
      return;
    case "translation":
      expect(body, context).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      return;
    default:
      expect(body, context).toMatchObject({ code: expect.any(String) });
      expect(
        typeof (body as { detail?: unknown }).detail === "string" ||
          Array.isArray((body as { detail?: unknown }).detail),
        context,
      ).toBe(true);
  }
}

/**
 * Sends a fuzzed request and checks the answer: a status among `allowed`, never a 5xx, a refusal in
 * the service's envelope with nothing stored. Records the status in `seen` (so a test can check its
 * generator reached both acceptance and refusals) and returns the answer.
 */
export async function expectHandled(
  request: FuzzRequest,
  allowed: readonly number[],
  seen?: Set<number>,
): Promise<Answer> {
  // Reads cannot store anything; skipping the count keeps the fuzz within its time budget.
  const writes = request.method !== "GET";
  const before = writes ? await stored() : null;
  const answer = await send(request);
  const context = `${describe(request)} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, context).toBeLessThan(500);
  expect(allowed, context).toContain(answer.status);
  seen?.add(answer.status);
  if (answer.status >= 400) {
    expectEnvelope(request.path, answer, context);
    if (!before) return answer;
    const after = await stored();
    expect(
      after,
      `${context}: a refused request stored something: ${JSON.stringify({ before, after })}`,
    ).toEqual(before);
  }
  return answer;
}

/**
 * API keys for fuzzing create routes: a fresh one every `perKey` uses, so the per-key rate limit
 * (60 a minute) never answers in place of the validation under test.
 */
export class KeyPool {
  #key: { id: string; key: string } | null = null;
  #uses = 0;

  constructor(private readonly perKey = 40) {}

  async next(): Promise<{ id: string; key: string; fresh: boolean }> {
    const fresh = !this.#key || this.#uses >= this.perKey;
    if (fresh) {
      this.#key = await createKey("fuzz");
      this.#uses = 0;
    }
    this.#uses++;
    return { ...(this.#key as { id: string; key: string }), fresh };
  }
}

// ---- generators shared by the route fuzzers ----

/** Strings that stress validators: empty, long, unicode, control characters, lone surrogates, JSON-ish. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "null", "auto", "\u0000", "\ud800", "../../etc/passwd", "%00", "😀".repeat(10)),
  fc.integer({ min: 1, max: 5000 }).map((n) => "x".repeat(n)),
);

/** Any JSON value, including objects with the field names the API knows. */
export const jsonBody = (knownFields: readonly string[]) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom(...knownFields), fc.string({ maxLength: 12 })),
      fc.oneof(nastyString, fc.jsonValue({ maxDepth: 2 }), fc.constant(null)),
      { maxKeys: knownFields.length + 2 },
    ),
  );

/** A body as the wire carries it: JSON, truncated JSON, or text that is not JSON. */
export const serializedJson = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: value.map((v) => JSON.stringify(v) ?? "null") },
    value.chain((v) => {
      const text = JSON.stringify(v) ?? "null";
      return fc.nat(text.length).map((cut) => text.slice(0, cut));
    }),
    nastyString,
  );

export const jsonContentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  fc.constantFrom(
    "application/json; charset=utf-8",
    "APPLICATION/JSON",
    "application/vnd.api+json",
    "text/plain",
    "",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
  ),
);

/** Text with lone surrogates replaced, as a URL or a header would carry it. */
export const wellFormed = (text: string) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/**
 * A path segment: random text percent-encoded, or raw oddities (encoded slashes, stray percent signs,
 * very long). No dot segments: a URL parser resolves those into another route before the Worker runs.
 */
export const pathSegment = fc.oneof(
  nastyString
    .filter((s) => s.length > 0 && s !== "." && s !== "..")
    .map((s) => encodeURIComponent(wellFormed(s))),
  fc.constantFrom("%2F", "a%2Fb", "%", "%zz", "%00", "00000000-0000-4000-8000-000000000000"),
  fc.uuid().map(String),
  fc.integer({ min: 120, max: 600 }).map((n) => "a".repeat(n)),
);

/** A query string built from known and random names with nasty values; sometimes raw garbage. */
export const queryString = (knownNames: readonly string[]) =>
  fc.oneof(
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...knownNames), fc.string({ maxLength: 8 })), nastyString), {
        maxLength: 5,
      })
      .map((pairs) => {
        const params = new URLSearchParams();
        for (const [name, value] of pairs) params.append(name, value);
        return `?${params}`;
      }),
    fc.constantFrom("?%", "?limit=%zz", "?&&&", "?limit=1e400", "?skip=-0", "?limit=0x10", ""),
  );

/** A multipart body from parts, with its Content-Type; sometimes broken (cut, wrong boundary). */
export interface FormPartSpec {
  name: string;
  filename?: string;
  contentType?: string;
  value: string | Uint8Array;
}

export function multipartBody(parts: FormPartSpec[], boundary: string): Uint8Array {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    const file = part.filename === undefined ? "" : `; filename="${part.filename}"`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : "";
    chunks.push(
      encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}\r\n${type}\r\n`,
      ),
    );
    chunks.push(typeof part.value === "string" ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Ways a multipart request can be broken on the wire, beside its fields. */
export const multipartWire = fc.constantFrom(
  "intact",
  "intact",
  "intact",
  "truncated",
  "wrong-boundary",
  "no-boundary",
  "not-multipart",
);

/** The request headers and body for a form sent in a given wire shape. */
export function wireForm(
  parts: FormPartSpec[],
  boundary: string,
  wire: string,
  cut: number,
): { headers: Record<string, string>; body: Uint8Array } {
  const body = multipartBody(parts, boundary);
  const type = `multipart/form-data; boundary=${boundary}`;
  switch (wire) {
    case "truncated":
      return { headers: { "content-type": type }, body: body.slice(0, cut % Math.max(1, body.byteLength)) };
    case "wrong-boundary":
      return { headers: { "content-type": `${type}x` }, body };
    case "no-boundary":
      return { headers: { "content-type": "multipart/form-data" }, body };
    case "not-multipart":
      return { headers: { "content-type": "application/octet-stream" }, body };
    default:
      return { headers: { "content-type": type }, body };
  }
}
