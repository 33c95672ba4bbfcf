/**
 * Property tests of the streaming multipart reader (worker/ingest/multipart.ts), against a model of the
 * form and, differentially, against @remix-run/multipart-parser: random boundaries, bodies full of
 * boundary fragments, duplicate field names, preambles and epilogues, every split of the bytes into
 * chunks, truncation anywhere, garbage. The reader must give back exactly the parts written, refuse
 * anything cut short with a MultipartError (never hang, never another error), and never hold more than
 * one chunk plus a delimiter of a part's body.
 */
import { parseMultipartStream } from "@remix-run/multipart-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MultipartError, multipartBoundary, readFormParts } from "../../worker/ingest/multipart.ts";
import { fuzzRuns } from "../helpers/fuzz.ts";

const encoder = new TextEncoder();

interface ModelPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  body: Uint8Array;
}

interface Form {
  boundary: string;
  parts: ModelPart[];
  preamble: string;
  epilogue: string;
}

// RFC 2046 bchars (no space: a trailing one is not allowed, and headers rarely carry them)
const boundary = fc.stringMatching(/^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/);
const fieldName = fc.stringMatching(/^[A-Za-z0-9_[\].-](?:[A-Za-z0-9_[\]. -]{0,18}[A-Za-z0-9_[\].-])?$/);
// No space at either end of names: @remix-run/headers trims them, and framing is what is compared.
const filename = fc.option(fc.stringMatching(/^[A-Za-z0-9_.-](?:[A-Za-z0-9_. -]{0,22}[A-Za-z0-9_.-])?$/), {
  nil: null,
});
const contentType = fc.option(fc.constantFrom("audio/mpeg", "text/plain", "application/octet-stream"), {
  nil: null,
});

/** Bytes rich in what confuses a boundary search: CR, LF, dashes, and pieces of the boundary itself. */
const bodyFor = (b: string) =>
  fc
    .array(
      fc.oneof(
        fc.integer({ min: 0, max: 255 }).map((n) => [n]),
        fc.constantFrom([13], [10], [45], [13, 10], [13, 10, 45, 45]),
        fc.integer({ min: 0, max: b.length }).map((n) => [...encoder.encode(`\r\n--${b}`.slice(0, 4 + n))]),
      ),
      { maxLength: 60 },
    )
    .map((pieces) => breakDelimiters(Uint8Array.from(pieces.flat()), b));

/** Makes sure a body cannot end its own part: every full delimiter in it loses its LF. */
function breakDelimiters(body: Uint8Array, b: string): Uint8Array {
  const delimiter = encoder.encode(`\r\n--${b}`);
  const out = body.slice();
  for (let at = indexOf(out, delimiter, 0); at >= 0; at = indexOf(out, delimiter, at + 1)) out[at + 1] = 0;
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const form = (options: { preamble: boolean }) =>
  boundary.chain((b) =>
    fc.record({
      boundary: fc.constant(b),
      parts: fc.array(fc.record({ name: fieldName, filename, contentType, body: bodyFor(b) }), {
        maxLength: 6,
      }),
      // A preamble and epilogue may be anything that holds no delimiter (RFC 2046 § 5.1.1).
      preamble: options.preamble ? fc.stringMatching(/^[a-z \r\n]{0,40}$/) : fc.constant(""),
      epilogue: options.preamble ? fc.stringMatching(/^[a-z \r\n-]{0,40}$/) : fc.constant(""),
    }),
  );

/** A form with duplicate names: the same few names, repeated. */
const formWithDuplicates = boundary.chain((b) =>
  fc.record({
    boundary: fc.constant(b),
    parts: fc.array(
      fc.record({
        name: fc.constantFrom("file", "language", "timestamp_granularities[]"),
        filename,
        contentType,
        body: bodyFor(b),
      }),
      { minLength: 2, maxLength: 8 },
    ),
    preamble: fc.constant(""),
    epilogue: fc.constant(""),
  }),
);

function serialize(f: Form): Uint8Array {
  const pieces: Uint8Array[] = [];
  const text = (s: string) => pieces.push(encoder.encode(s));
  if (f.preamble) text(`${f.preamble}\r\n`);
  for (const part of f.parts) {
    text(`--${f.boundary}\r\n`);
    const file = part.filename === null ? "" : `; filename="${part.filename}"`;
    text(`Content-Disposition: form-data; name="${part.name}"${file}\r\n`);
    if (part.contentType) text(`Content-Type: ${part.contentType}\r\n`);
    text("\r\n");
    pieces.push(part.body);
    text("\r\n");
  }
  text(`--${f.boundary}--`);
  if (f.epilogue) text(`\r\n${f.epilogue}`);
  return concat(pieces);
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The bytes cut at sorted random points: the chunks a network might deliver. */
const cuts = fc.array(fc.nat(), { maxLength: 12 });
function split(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) chunks.push(bytes.slice(from, cut));
    from = cut;
  }
  return chunks;
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

/** Reads every part with our reader; `skip[i]` leaves part i's body unread (the reader must skip it). */
async function readOurs(chunks: Uint8Array[], b: string, skip: boolean[] = []) {
  const parts: (ModelPart | { name: string; skipped: true })[] = [];
  let largestChunk = 0;
  let index = 0;
  for await (const part of readFormParts(streamOf(chunks), b)) {
    if (skip[index++]) {
      parts.push({ name: part.name, skipped: true });
      continue;
    }
    const pieces: Uint8Array[] = [];
    for await (const piece of part.body) {
      largestChunk = Math.max(largestChunk, piece.length);
      pieces.push(piece);
    }
    parts.push({
      name: part.name,
      filename: part.filename,
      contentType: part.contentType,
      body: concat(pieces),
    });
  }
  return { parts, largestChunk };
}

async function readRemix(chunks: Uint8Array[], b: string): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of parseMultipartStream(streamOf(chunks), { boundary: b, maxFileSize: 1 << 20 })) {
    parts.push({
      name: part.name ?? "",
      filename: part.filename ?? null,
      contentType: part.headers["content-type"] ?? null,
      body: part.bytes,
    });
  }
  return parts;
}

const modelView = (parts: ModelPart[]) =>
  parts.map((p) => ({ name: p.name, filename: p.filename, contentType: p.contentType, body: [...p.body] }));

describe("multipart reader (fuzzed)", () => {
  it("gives back exactly the parts written, whatever the boundary and however the bytes are split", async () => {
    await fc.assert(
      fc.asyncProperty(form({ preamble: true }), cuts, async (f, points) => {
        const bytes = serialize(f);
        const chunks = split(bytes, points);
        const { parts, largestChunk } = await readOurs(chunks, f.boundary);
        expect(modelView(parts as ModelPart[])).toEqual(modelView(f.parts));
        // Bounded memory: a body piece is at most one network chunk plus a delimiter kept back.
        const biggestInput = Math.max(0, ...chunks.map((c) => c.length));
        expect(largestChunk).toBeLessThanOrEqual(biggestInput + f.boundary.length + 4);
      }),
      fuzzRuns(400),
    );
  });

  it("agrees with @remix-run/multipart-parser on every well-formed form without a preamble", async () => {
    await fc.assert(
      fc.asyncProperty(form({ preamble: false }), cuts, async (f, points) => {
        const chunks = split(serialize(f), points);
        const ours = (await readOurs(chunks, f.boundary)).parts as ModelPart[];
        const theirs = await readRemix(chunks, f.boundary);
        expect(modelView(ours)).toEqual(modelView(theirs));
      }),
      fuzzRuns(300),
    );
  });

  it("keeps duplicate fields in order, and skips the bodies a consumer leaves unread", async () => {
    await fc.assert(
      fc.asyncProperty(
        formWithDuplicates,
        cuts,
        fc.array(fc.boolean(), { maxLength: 8 }),
        async (f, points, skip) => {
          const { parts } = await readOurs(split(serialize(f), points), f.boundary, skip);
          expect(parts.map((p) => p.name)).toEqual(f.parts.map((p) => p.name));
          parts.forEach((part, i) => {
            if (!("skipped" in part)) expect([...part.body]).toEqual([...(f.parts[i]?.body ?? [])]);
          });
        },
      ),
      fuzzRuns(300),
    );
  });

  it("refuses a body cut short anywhere before its closing delimiter with a MultipartError", async () => {
    await fc.assert(
      fc.asyncProperty(form({ preamble: false }), fc.nat(), cuts, async (f, at, points) => {
        const bytes = serialize(f);
        const end = bytes.length; // no epilogue: the closing "--boundary--" ends the bytes
        const truncated = bytes.slice(0, at % end);
        await expect(readOurs(split(truncated, points), f.boundary)).rejects.toBeInstanceOf(MultipartError);
      }),
      fuzzRuns(400),
    );
  });

  it("answers garbage with parts or a MultipartError, never another error and never a hang", async () => {
    const garbage = boundary.chain((b) =>
      fc.tuple(
        fc.constant(b),
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 40 }),
            fc
              .constantFrom(
                `--${b}\r\n`,
                `\r\n--${b}`,
                `--${b}--`,
                "\r\n\r\n",
                'Content-Disposition: form-data; name="a"\r\n',
              )
              .map((s) => encoder.encode(s)),
          ),
          { maxLength: 30 },
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(garbage, cuts, async ([b, pieces], points) => {
        try {
          await readOurs(split(concat(pieces), points), b);
        } catch (error) {
          expect(error).toBeInstanceOf(MultipartError);
        }
      }),
      fuzzRuns(600),
    );
  });

  it("enforces its limits: 32 parts, 16 KiB of part headers, 16 KiB of preamble", async () => {
    const b = "limit";
    const many = Array.from({ length: 33 }, (_, i) => ({
      name: `f${i}`,
      filename: null,
      contentType: null,
      body: new Uint8Array(1),
    }));
    await expect(
      readOurs([serialize({ boundary: b, parts: many, preamble: "", epilogue: "" })], b),
    ).rejects.toThrow(/more than 32 form parts/);
    const longHeader = encoder.encode(`--${b}\r\nX-Pad: ${"a".repeat(17 * 1024)}\r\n\r\nbody\r\n--${b}--`);
    await expect(readOurs(split(longHeader, [100, 5000, 9000]), b)).rejects.toThrow(/headers are too long/);
    const longPreamble = encoder.encode(`${"p".repeat(17 * 1024)}\r\n--${b}\r\n\r\n\r\n--${b}--`);
    await expect(readOurs([longPreamble], b)).rejects.toThrow(/no part starts with the boundary/);
  });

  it("reads the boundary only from a multipart/form-data Content-Type, quoted or not, up to 70 characters", () => {
    fc.assert(
      fc.property(
        boundary,
        fc.boolean(),
        fc.constantFrom("multipart/form-data", "MULTIPART/Form-Data"),
        (b, quoted, type) => {
          expect(multipartBoundary(`${type}; boundary=${quoted ? `"${b}"` : b}`)).toBe(b);
        },
      ),
      fuzzRuns(300),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (anything) => {
        const found = multipartBoundary(anything);
        if (found !== null) expect(found.length).toBeLessThanOrEqual(70);
        if (!/^\s*multipart\/form-data\s*;/i.test(anything)) expect(found).toBeNull();
      }),
      fuzzRuns(500),
    );
  });
});
