/**
 * A streaming multipart/form-data reader (RFC 7578) for request bodies too large to buffer: parts come
 * one at a time, each with its body as a stream read straight off the request. Memory stays at one
 * chunk of the request plus a boundary's length.
 */

/** One part of a form. Read `body` to its end (or leave it) before asking for the next part. */
export interface FormPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  body: ReadableStream<Uint8Array>;
}

/** The body is not well-formed multipart, or breaks a limit; `field` names the part at fault, if one. */
export class MultipartError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PREAMBLE_BYTES = 16 * 1024;
const MAX_PARTS = 32;
const CR = 13;
const LF = 10;
const DASH = 45;
const encoder = new TextEncoder();

/** The boundary of a `multipart/form-data` Content-Type, or null for any other type. */
export function multipartBoundary(contentType: string | null): string | null {
  const [type = "", ...params] = (contentType ?? "").split(";");
  if (type.trim().toLowerCase() !== "multipart/form-data") return null;
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s";]{1,70}))\s*$/i.exec(param);
    if (match) return match[1] ?? match[2] ?? null;
  }
  return null;
}

/**
 * Yields the parts of a multipart body in order.
 *
 * @example for await (const part of readFormParts(request.body, boundary)) { ... }
 */
export async function* readFormParts(
  body: ReadableStream<Uint8Array>,
  boundary: string,
): AsyncGenerator<FormPart, void, undefined> {
  const scanner = new Scanner(body.getReader(), encoder.encode(`\r\n--${boundary}`));
  try {
    await scanner.skipPreamble();
    for (let count = 1; await scanner.openPart(); count++) {
      if (count > MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} form parts`);
      const headers = parseHeaders(await scanner.readHeaderBlock());
      const body = new ReadableStream<Uint8Array>(
        {
          pull: async (controller) => {
            const chunk = await scanner.readBody();
            if (chunk) controller.enqueue(chunk);
            else controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      yield { ...headers, body };
      await scanner.skipBody(); // whatever the consumer left of this part
    }
  } finally {
    await scanner.release();
  }
}

/** Reads a text field to its end, refusing one longer than `maxBytes`. */
export async function readTextPart(part: FormPart, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (const reader = part.body.getReader(); ; ) {
    const next = await reader.read();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > maxBytes) throw new MultipartError(`longer than ${maxBytes} bytes`, part.name);
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Cursor over the body: a window of unread bytes that grows by whole chunks as searches need. */
class Scanner {
  // A CRLF in front lets a body that opens with its boundary line match the delimiter "\r\n--boundary".
  private buffer: Uint8Array = new Uint8Array([CR, LF]);
  private inPart = false;
  private readonly find: (haystack: Uint8Array) => number;

  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly delimiter: Uint8Array,
  ) {
    this.find = finder(delimiter);
  }

  /** Appends the next chunk; false at the end of the body. */
  private async more(): Promise<boolean> {
    const next = await this.reader.read();
    if (next.done) return false;
    if (this.buffer.byteLength === 0) {
      this.buffer = next.value;
      return true;
    }
    const joined = new Uint8Array(this.buffer.byteLength + next.value.byteLength);
    joined.set(this.buffer);
    joined.set(next.value, this.buffer.byteLength);
    this.buffer = joined;
    return true;
  }

  private async need(bytes: number): Promise<void> {
    while (this.buffer.byteLength < bytes) {
      if (!(await this.more())) throw new MultipartError("the body ended in the middle of a part");
    }
  }

  async skipPreamble(): Promise<void> {
    for (;;) {
      const at = this.find(this.buffer);
      if (at > MAX_PREAMBLE_BYTES + 2) {
        throw new MultipartError("no part starts with the boundary the Content-Type names");
      }
      if (at >= 0) {
        this.buffer = this.buffer.subarray(at + this.delimiter.byteLength);
        return;
      }
      if (this.buffer.byteLength > MAX_PREAMBLE_BYTES || !(await this.more())) {
        throw new MultipartError("no part starts with the boundary the Content-Type names");
      }
    }
  }

  /** After a delimiter: true when a part follows, false at the closing `--`. */
  async openPart(): Promise<boolean> {
    await this.need(2);
    if (this.buffer[0] === DASH && this.buffer[1] === DASH) return false;
    let at = 0;
    for (;;) {
      await this.need(at + 2);
      const byte = this.buffer[at];
      if (byte !== 0x20 && byte !== 0x09) break; // transport padding after the boundary
      at++;
    }
    if (this.buffer[at] !== CR || this.buffer[at + 1] !== LF) {
      throw new MultipartError("a boundary line is not followed by a line break");
    }
    // Keep the CRLF: an empty header block is then "\r\n\r\n", like any other.
    this.buffer = this.buffer.subarray(at);
    this.inPart = true;
    return true;
  }

  /** The header lines of the part just opened, as text. */
  async readHeaderBlock(): Promise<string> {
    for (let from = 0; ; ) {
      const end = indexOfBlankLine(this.buffer, from);
      // Checked on a found block too: one large network chunk could carry a whole oversized block.
      if (end - 2 > MAX_HEADER_BYTES) throw new MultipartError("part headers are too long");
      if (end >= 0) {
        const text = new TextDecoder().decode(this.buffer.subarray(2, end));
        this.buffer = this.buffer.subarray(end + 4);
        return text;
      }
      if (this.buffer.byteLength > MAX_HEADER_BYTES) throw new MultipartError("part headers are too long");
      from = Math.max(0, this.buffer.byteLength - 3);
      await this.need(this.buffer.byteLength + 1);
    }
  }

  /** The next piece of the open part's body; null once the part's closing delimiter is reached. */
  async readBody(): Promise<Uint8Array | null> {
    while (this.inPart) {
      const at = this.find(this.buffer);
      if (at === 0) {
        this.buffer = this.buffer.subarray(this.delimiter.byteLength);
        this.inPart = false;
        return null;
      }
      // Bytes before a match, or before where a delimiter split across chunks could start, are data.
      const safe = at > 0 ? at : this.buffer.byteLength - this.delimiter.byteLength + 1;
      if (safe > 0) {
        const chunk = this.buffer.subarray(0, safe);
        this.buffer = this.buffer.subarray(safe);
        return chunk;
      }
      await this.need(this.buffer.byteLength + 1);
    }
    return null;
  }

  async skipBody(): Promise<void> {
    while (this.inPart) await this.readBody();
  }

  async release(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

/**
 * Boyer-Moore-Horspool search for `needle`: index of its first occurrence, or -1. Typed tables and no
 * optional chaining in the loop, which runs over every byte of an upload.
 */
function finder(needle: Uint8Array): (haystack: Uint8Array) => number {
  const length = needle.byteLength;
  const last = length - 1;
  const lastByte = needle[last] as number;
  // a boundary is at most 70 characters, so every shift fits a byte
  const shift = new Uint8Array(256).fill(length);
  for (let i = 0; i < last; i++) shift[needle[i] as number] = last - i;
  return (haystack) => {
    const end = haystack.byteLength - length;
    for (let i = 0; i <= end; ) {
      const byte = haystack[i + last] as number;
      if (byte === lastByte) {
        let j = last - 1;
        while (j >= 0 && haystack[i + j] === needle[j]) j--;
        if (j < 0) return i;
      }
      i += shift[byte] as number;
    }
    return -1;
  };
}

function indexOfBlankLine(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.byteLength; i++) {
    if (bytes[i] === CR && bytes[i + 1] === LF && bytes[i + 2] === CR && bytes[i + 3] === LF) return i;
  }
  return -1;
}

/** Name, filename and type of a part from its header lines. */
function parseHeaders(block: string): Omit<FormPart, "body"> {
  let disposition = "";
  let contentType: string | null = null;
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === "content-disposition") disposition = value;
    else if (field === "content-type") contentType = value || null;
  }
  if (!/^form-data\s*(;|$)/i.test(disposition)) {
    throw new MultipartError("a part has no Content-Disposition: form-data header");
  }
  const params = dispositionParams(disposition);
  const name = params.get("name");
  if (name === undefined) throw new MultipartError("a part has no name");
  return { name, filename: params.get("filename*") ?? params.get("filename") ?? null, contentType };
}

/** `name`, `filename` and `filename*` (RFC 5987, decoded) of a Content-Disposition value. */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const match of value.matchAll(/;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const key = (match[1] ?? "").toLowerCase();
    let text = (match[2] ?? "").trim();
    if (text.startsWith('"')) text = text.slice(1, -1).replace(/\\(.)/g, "$1");
    if (key === "filename*") {
      const encoded = /^utf-8'[^']*'(.*)$/i.exec(text);
      if (!encoded) continue;
      try {
        text = decodeURIComponent(encoded[1] ?? "");
      } catch {
        continue;
      }
    }
    if (!params.has(key)) params.set(key, text);
  }
  return params;
}
