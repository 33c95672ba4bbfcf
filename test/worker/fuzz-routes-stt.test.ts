/**
 * Fuzzes every public request schema of the speech-to-text service and the OpenAI-compatible routes
 * through the real Worker: JSON bodies (valid shapes with hostile values, arbitrary JSON, truncated
 * JSON, wrong content types, Idempotency-Key headers), multipart forms (random fields, duplicate and
 * missing files, broken wire shapes), query strings and path ids. Every answer must be a documented
 * status, never a 5xx or a hang, and a refusal stores nothing (test/worker/fuzz-helpers.ts).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { fuzzRuns } from "../helpers/fuzz.ts";
import {
  expectHandled,
  type FormPartSpec,
  jsonBody,
  jsonContentType,
  KeyPool,
  multipartWire,
  nastyString,
  pathSegment,
  queryString,
  serializedJson,
  wireForm,
} from "./fuzz-helpers.ts";
import { bearer, createKey } from "./helpers.ts";
import { fixtureUrl } from "./ingest-helpers.ts";

const SEED_OFFSET = 1;
const keys = new KeyPool();
let reader: string;

beforeAll(async () => {
  reader = (await createKey("fuzz-reader")).key;
});

/** Printable ASCII only: anything else cannot be a header value at all. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});
const idempotencyHeader = fc.option(headerText, { nil: undefined, freq: 3 });

const fileUrl = fc.oneof(
  fc.constantFrom(
    fixtureUrl("/audio.mp3"),
    fixtureUrl("/missing"),
    fixtureUrl("/huge"),
    fixtureUrl("/redirect-metadata"),
    fixtureUrl("/empty"),
    "http://169.254.169.254/latest/meta-data",
    "http://0x7f.1/a.mp3",
    "http://[::ffff:10.0.0.1]/a.mp3",
    "file:///etc/passwd",
    "http://localhost../a.mp3",
    "https://user:pw@example.com/a.mp3",
  ),
  nastyString,
);
const language = fc.oneof(
  fc.constantFrom("en", "vi", "Vietnamese", "auto", "en-US", null, "", "xx", "klingon"),
  nastyString,
);
const context = fc.oneof(
  nastyString,
  fc.integer({ min: 1990, max: 2010 }).map((n) => "c".repeat(n)),
);

/** A body of a transcribe JSON route: its real fields with hostile values, or anything at all. */
const transcribeBody = (source: "file_url" | "object_key", sourceValue: fc.Arbitrary<unknown>) =>
  fc.oneof(
    fc.record(
      { [source]: sourceValue, language, model: fc.option(nastyString), context, extra: nastyString },
      { requiredKeys: [] },
    ),
    jsonBody([source, "language", "model", "context"]),
  );

const jsonRequest = (path: string, body: fc.Arbitrary<unknown>) =>
  fc.tuple(serializedJson(body), jsonContentType, idempotencyHeader).map(([text, type, idem]) => ({
    text,
    headers: { "content-type": type, ...(idem === undefined ? {} : { "idempotency-key": idem }) },
    path,
  }));

describe("speech-to-text routes (fuzzed)", { timeout: 60_000 }, () => {
  it("POST /transcribe: any JSON, any file_url spelling", async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(jsonRequest("/transcribe", transcribeBody("file_url", fileUrl)), async (request) => {
        const { key } = await keys.next();
        await expectHandled(
          {
            method: "POST",
            path: request.path,
            headers: { ...bearer(key), ...request.headers },
            body: request.text,
          },
          [200, 400, 409, 413, 415, 422],
          seen,
        );
      }),
      { ...fuzzRuns(60), seed: fuzzRuns(1).seed + SEED_OFFSET },
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 400, 422]));
  });

  it("POST /transcribe/object: any JSON, any object key", async () => {
    const objectKey = fc.oneof(
      fc.uuid().map((id) => `uploads/${id}/a.mp3`),
      fc.constantFrom("uploads/../x", "outputs/x", "", "uploads/"),
      nastyString,
    );
    await fc.assert(
      fc.asyncProperty(
        jsonRequest("/transcribe/object", transcribeBody("object_key", objectKey)),
        async (request) => {
          const { key } = await keys.next();
          await expectHandled(
            {
              method: "POST",
              path: request.path,
              headers: { ...bearer(key), ...request.headers },
              body: request.text,
            },
            [400, 404, 409, 413, 415, 422],
          );
        },
      ),
      { ...fuzzRuns(40), seed: fuzzRuns(1).seed + SEED_OFFSET + 1 },
    );
  });

  it("POST /transcribe/upload: random forms, duplicate or missing files, broken multipart", async () => {
    const part: fc.Arbitrary<FormPartSpec> = fc.record(
      {
        name: fc.oneof(
          fc.constantFrom("file", "language", "model", "context"),
          nastyString.map((s) => s.replace(/["\r\n]/g, "")),
        ),
        filename: fc.option(fc.constantFrom("a.mp3", "../../x.wav", "", "é.wav"), { nil: undefined }),
        contentType: fc.option(fc.constantFrom("audio/mpeg", "text/plain", ""), { nil: undefined }),
        value: fc.oneof(nastyString, fc.uint8Array({ maxLength: 300 })),
      },
      { requiredKeys: ["name", "value"] },
    );
    const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,-.]{1,40}$/);
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(part, { maxLength: 6 }),
        boundary,
        multipartWire,
        fc.nat(),
        idempotencyHeader,
        async (parts, b, wire, cut, idem) => {
          const { key } = await keys.next();
          const form = wireForm(parts, b, wire, cut);
          await expectHandled(
            {
              method: "POST",
              path: "/transcribe/upload",
              headers: {
                ...bearer(key),
                ...form.headers,
                ...(idem === undefined ? {} : { "idempotency-key": idem }),
              },
              body: form.body,
            },
            [200, 400, 409, 413, 422],
            seen,
          );
        },
      ),
      { ...fuzzRuns(60), seed: fuzzRuns(1).seed + SEED_OFFSET + 2 },
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 422]));
  });

  it("GET /transcribe/{task_id} and GET /history: any path id, any query", async () => {
    await fc.assert(
      fc.asyncProperty(pathSegment, async (id) => {
        await expectHandled(
          { method: "GET", path: `/transcribe/${id}`, headers: bearer(reader) },
          [404, 422],
        );
      }),
      { ...fuzzRuns(30), seed: fuzzRuns(1).seed + SEED_OFFSET + 3 },
    );
    await fc.assert(
      fc.asyncProperty(queryString(["limit", "skip", "status"]), async (query) => {
        await expectHandled({ method: "GET", path: `/history${query}`, headers: bearer(reader) }, [200, 422]);
      }),
      { ...fuzzRuns(30), seed: fuzzRuns(1).seed + SEED_OFFSET + 4 },
    );
  });

  it("POST /uploads/presign: any JSON", async () => {
    const fields = fc.record(
      {
        filename: fc.oneof(fc.constantFrom("talk.mp3", "Bài giảng.wav", "../../x"), nastyString),
        content_type: fc.oneof(
          fc.constantFrom("audio/mpeg", "audio/mpeg; x=y", "text/html", "a/b/c", ""),
          nastyString,
        ),
      },
      { requiredKeys: ["filename"] },
    );
    const body = fc.oneof(
      { weight: 3, arbitrary: fields },
      fc.tuple(fields, nastyString).map(([known, extra]) => ({ ...known, extra })),
      jsonBody(["filename", "content_type"]),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(jsonRequest("/uploads/presign", body), async (request) => {
        const { key } = await keys.next();
        await expectHandled(
          {
            method: "POST",
            path: request.path,
            headers: { ...bearer(key), ...request.headers },
            body: request.text,
          },
          [200, 413, 415, 422],
          seen,
        );
      }),
      { ...fuzzRuns(40), seed: fuzzRuns(1).seed + SEED_OFFSET + 5 },
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 422]));
  });
});

/**
 * What makes a compatible-API form invalid. Every generated form has at least one (a valid form would
 * wait for a transcript, up to SYNC_WAIT_MAX_SEC, with no node to make one).
 */
const DEFECTS = [
  "no-file",
  "empty-file",
  "two-files",
  "bad-format",
  "bad-temperature",
  "long-prompt",
  "bad-granularity",
  "bad-language",
  "broken-wire",
] as const;

function openAIForm(defect: (typeof DEFECTS)[number], extra: FormPartSpec[]): FormPartSpec[] {
  const audio = {
    name: "file",
    filename: "a.wav",
    contentType: "audio/wav",
    value: new Uint8Array(64).fill(7),
  };
  const parts: FormPartSpec[] = [{ name: "model", value: "whisper-1" }];
  if (defect !== "no-file")
    parts.push(defect === "empty-file" ? { ...audio, value: new Uint8Array(0) } : audio);
  if (defect === "two-files") parts.push(audio);
  if (defect === "bad-format") parts.push({ name: "response_format", value: "mp4" });
  if (defect === "bad-temperature") parts.push({ name: "temperature", value: "warm" });
  if (defect === "long-prompt") parts.push({ name: "prompt", value: "p".repeat(2001) });
  if (defect === "bad-granularity") parts.push({ name: "timestamp_granularities[]", value: "minute" });
  if (defect === "bad-language") parts.push({ name: "language", value: "klingon" });
  return [...extra, ...parts];
}

describe("OpenAI-compatible routes (fuzzed)", { timeout: 60_000 }, () => {
  it("POST /v1/audio/transcriptions and /translations: every invalid form is a 4xx in OpenAI's envelope, nothing stored", async () => {
    const extraPart: fc.Arbitrary<FormPartSpec> = fc.record({
      // Field names the API does not read: a known name could repair the form's defect.
      name: fc.stringMatching(/^x_[a-z]{1,8}$/),
      value: fc.oneof(nastyString, fc.uint8Array({ maxLength: 64 })),
    });
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("transcriptions", "translations"),
        fc.constantFrom(...DEFECTS),
        fc.array(extraPart, { maxLength: 3 }),
        fc.constantFrom("truncated", "wrong-boundary", "no-boundary", "not-multipart"),
        fc.nat(),
        async (route, defect, extra, brokenWire, cut) => {
          // translations have no language field: a language there is ignored, not a defect
          const chosen = route === "translations" && defect === "bad-language" ? "no-file" : defect;
          const wire = chosen === "broken-wire" ? brokenWire : "intact";
          const form = wireForm(openAIForm(chosen, extra), "fuzzBoundary", wire, cut);
          const { key } = await keys.next();
          await expectHandled(
            {
              method: "POST",
              path: `/v1/audio/${route}`,
              headers: { ...bearer(key), ...form.headers },
              body: form.body,
            },
            [400, 413, 422],
            seen,
          );
        },
      ),
      { ...fuzzRuns(60), seed: fuzzRuns(1).seed + SEED_OFFSET + 6 },
    );
    expect([...seen]).toEqual(expect.arrayContaining([400, 422]));
  });

  it("GET /v1/models/{model}: any path id", async () => {
    await fc.assert(
      fc.asyncProperty(pathSegment, async (model) => {
        await expectHandled(
          { method: "GET", path: `/v1/models/${model}`, headers: bearer(reader) },
          [200, 404, 422],
        );
      }),
      { ...fuzzRuns(25), seed: fuzzRuns(1).seed + SEED_OFFSET + 7 },
    );
  });
});
