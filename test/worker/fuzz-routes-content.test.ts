/**
 * Fuzzes every public request schema of the content service (notes, catalogs, /v2/create forms, task
 * polling) and of real-time translation's REST side and socket handshakes through the real Worker.
 * Every answer must be a documented status in the service's own envelope, never a 5xx or a hang, and a
 * refusal stores nothing (test/worker/fuzz-helpers.ts).
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
  multipartBody,
  nastyString,
  pathSegment,
  queryString,
  serializedJson,
  wellFormed,
} from "./fuzz-helpers.ts";
import { bearer, call, createKey } from "./helpers.ts";
import { postJson } from "./ingest-helpers.ts";

const SEED_OFFSET = 20;
const seed = (n: number) => fuzzRuns(1).seed + SEED_OFFSET + n;

let reader: string;
let foreignNoteId: string;
const catalog = { voices: [] as string[], backgrounds: [] as string[], templates: [] as string[] };

/** A fresh key every few uses (rate limits stay out of the way), each with a note of its own. */
const keys = new KeyPool(25);
const ownNotes = new Map<string, string>();
async function keyWithNote(): Promise<{ key: string; noteId: string }> {
  const { key } = await keys.next();
  let noteId = ownNotes.get(key);
  if (!noteId) {
    const made = await postJson("/v1/notes", key, { content: "Photosynthesis turns light into sugar." });
    noteId = ((await made.json()) as { note_id: string }).note_id;
    ownNotes.set(key, noteId);
  }
  return { key, noteId };
}

beforeAll(async () => {
  reader = (await createKey("fuzz-content-reader")).key;
  const other = await createKey("fuzz-content-other");
  const note = await postJson("/v1/notes", other.key, { content: "Someone else's note." });
  foreignNoteId = ((await note.json()) as { note_id: string }).note_id;
  const list = async (path: string, field: string, id: string) => {
    const body = (await (await call(path, { headers: bearer(reader) })).json()) as Record<
      string,
      Record<string, string>[]
    >;
    return (body[field] ?? []).map((entry) => entry[id] ?? "");
  };
  catalog.voices = await list("/v1/voices", "voices", "voice_id");
  catalog.backgrounds = await list("/v1/backgrounds", "backgrounds", "bg_id");
  catalog.templates = await list("/v1/templates", "templates", "template_id");
});

const idempotencyHeader = fc.option(fc.stringMatching(/^[!-~]{1,300}$/), { nil: undefined, freq: 3 });

describe("content service (fuzzed)", { timeout: 60_000 }, () => {
  it("POST /v1/notes: any JSON; GET /v1/notes: any query; GET and DELETE /v1/notes/{id}: any id", async () => {
    const typed = fc.record(
      {
        content: fc.oneof(
          fc.constantFrom("Plants turn light into sugar.", "Cây xanh quang hợp."),
          nastyString,
          fc.integer({ min: 99_990, max: 100_010 }).map((n) => "n".repeat(n)),
        ),
        title: nastyString,
        language: fc.oneof(fc.constantFrom("vi", "en", "auto", "xx"), nastyString),
      },
      { requiredKeys: ["content"] },
    );
    const fromTranscription = fc.record(
      { transcription_task_id: fc.oneof(fc.uuid().map(String), nastyString), title: nastyString },
      { requiredKeys: ["transcription_task_id"] },
    );
    const noteBody = fc.oneof(
      { weight: 3, arbitrary: typed },
      fromTranscription,
      fc.tuple(typed, nastyString).map(([body, extra]) => ({ ...body, extra })),
      jsonBody(["content", "title", "language", "transcription_task_id"]),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(serializedJson(noteBody), jsonContentType, async (text, type) => {
        const { key } = await keys.next();
        await expectHandled(
          {
            method: "POST",
            path: "/v1/notes",
            headers: { ...bearer(key), "content-type": type },
            body: text,
          },
          [201, 400, 404, 413, 415, 422],
          seen,
        );
      }),
      { ...fuzzRuns(50), seed: seed(0) },
    );
    expect([...seen]).toEqual(expect.arrayContaining([201, 404, 422]));
    await fc.assert(
      fc.asyncProperty(queryString(["limit", "skip"]), async (query) => {
        await expectHandled(
          { method: "GET", path: `/v1/notes${query}`, headers: bearer(reader) },
          [200, 422],
        );
      }),
      { ...fuzzRuns(20), seed: seed(1) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(pathSegment, fc.constant(foreignNoteId)),
        fc.constantFrom("GET", "DELETE"),
        async (id, method) => {
          await expectHandled({ method, path: `/v1/notes/${id}`, headers: bearer(reader) }, [404, 422]);
        },
      ),
      { ...fuzzRuns(25), seed: seed(2) },
    );
  });

  it("POST /v2/create/*: any form field, urlencoded or multipart, any note", async () => {
    const pick = (list: () => string[]) =>
      fc.oneof(
        fc.nat().map((n) => list()[n % Math.max(1, list().length)] ?? ""),
        nastyString,
      );
    const fields = fc.record(
      {
        note_id: fc.constantFrom("own", "foreign", "random"),
        voice_id: pick(() => catalog.voices),
        bg_id: pick(() => catalog.backgrounds),
        template_id: pick(() => catalog.templates),
        clip_duration: fc.oneof(fc.integer({ min: -10, max: 200 }).map(String), nastyString),
        is_audio_only: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom("true", "false", "1", "0") },
          nastyString,
        ),
        community: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("true", "0") }, nastyString),
        language: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("en", "vi", "fr") }, nastyString),
        slide_count_range: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom("5-8", "1-30", "8-5", "0-3", "1-31") },
          nastyString,
        ),
        junk: nastyString,
        voice_id_2: pick(() => catalog.voices),
        format: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("deep_dive", "brief") }, nastyString),
        length: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("short", "default", "long") }, nastyString),
      },
      { requiredKeys: ["note_id"] },
    );
    const encoding = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("urlencoded", "multipart") },
      fc.constantFrom("json", "none", "oversize"),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("shorts", "quiz-video", "slide", "podcast", "video-overview"),
        fields,
        encoding,
        idempotencyHeader,
        async (route, form, how, idem) => {
          const { key, noteId } = await keyWithNote();
          const values: Record<string, string> = {};
          for (const [name, value] of Object.entries(form)) values[name] = wellFormed(String(value));
          if (form.note_id === "own") values.note_id = noteId;
          else if (form.note_id === "foreign") values.note_id = foreignNoteId;
          else if (form.note_id === "random") values.note_id = crypto.randomUUID();
          const headers: Record<string, string> = { ...bearer(key) };
          if (idem !== undefined) headers["idempotency-key"] = idem;
          let body: string | Uint8Array;
          if (how === "multipart") {
            const parts: FormPartSpec[] = Object.entries(values).map(([name, value]) => ({ name, value }));
            body = multipartBody(parts, "contentFuzz");
            headers["content-type"] = "multipart/form-data; boundary=contentFuzz";
          } else if (how === "json") {
            body = JSON.stringify(values);
            headers["content-type"] = "application/json";
          } else if (how === "oversize") {
            body = new URLSearchParams({ ...values, pad: "p".repeat(17 * 1024) }).toString();
            headers["content-type"] = "application/x-www-form-urlencoded";
          } else {
            body = new URLSearchParams(values).toString();
            if (how === "urlencoded") headers["content-type"] = "application/x-www-form-urlencoded";
          }
          await expectHandled(
            { method: "POST", path: `/v2/create/${route}`, headers, body },
            [200, 400, 404, 409, 413, 415, 422],
            seen,
          );
        },
      ),
      { ...fuzzRuns(80), seed: seed(3) },
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 400, 404, 413, 415]));
  });

  it("GET /v1/create/tasks/{id}/result and /v1/catalog/previews/{file}: any path id", async () => {
    await fc.assert(
      fc.asyncProperty(pathSegment, async (id) => {
        await expectHandled(
          { method: "GET", path: `/v1/create/tasks/${id}/result`, headers: bearer(reader) },
          [404, 422],
        );
        await expectHandled({ method: "GET", path: `/v1/catalog/previews/${id}` }, [404, 422]);
      }),
      { ...fuzzRuns(25), seed: seed(4) },
    );
  });
});

describe("real-time translation REST and handshakes (fuzzed)", { timeout: 60_000 }, () => {
  const sessionKeys = new KeyPool(25);

  it("POST /api/v1/session/create: any JSON; GET /api/v1/session/{id}: any id", async () => {
    const languages = fc.record({
      language: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("en", "es", "Spanish", "auto", "xx") },
        nastyString,
      ),
      translate_language: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("en", "es", "vi", "auto") },
        nastyString,
      ),
    });
    const body = fc.oneof(
      { weight: 3, arbitrary: languages },
      fc.tuple(languages, nastyString).map(([fields, extra]) => ({ ...fields, extra })),
      jsonBody(["language", "translate_language"]),
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(serializedJson(body), jsonContentType, async (text, type) => {
        const { key } = await sessionKeys.next();
        await expectHandled(
          {
            method: "POST",
            path: "/api/v1/session/create",
            headers: { ...bearer(key), "content-type": type },
            body: text,
          },
          [200, 400, 413, 415, 422],
          seen,
        );
      }),
      { ...fuzzRuns(40), seed: seed(5) },
    );
    expect([...seen]).toEqual(expect.arrayContaining([200, 400, 422]));
    await fc.assert(
      fc.asyncProperty(pathSegment, async (id) => {
        await expectHandled({ method: "GET", path: `/api/v1/session/${id}` }, [404, 422]);
      }),
      { ...fuzzRuns(20), seed: seed(6) },
    );
  });

  it("GET /ws, /api/v1/ws/single and /api/v1/ws/{id} without an upgrade: any query, any key", async () => {
    const apiKey = fc.oneof(fc.constant("valid"), fc.constant("absent"), fc.stringMatching(/^[!-~]{0,80}$/));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/ws", "/api/v1/ws/single", "/api/v1/ws/"),
        pathSegment,
        queryString(["language", "client_id", "api_key"]),
        apiKey,
        async (base, id, query, given) => {
          const path = base === "/api/v1/ws/" ? `${base}${id}${query}` : `${base}${query}`;
          const headers =
            given === "valid" ? bearer(reader) : given === "absent" ? undefined : { "x-api-key": given };
          await expectHandled({ method: "GET", path, headers }, [400, 401, 404, 422]);
        },
      ),
      { ...fuzzRuns(40), seed: seed(7) },
    );
  });
});
