import { ContentApiError } from "./errors.ts";

/** Largest create form accepted; the fields are ids and short values. */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * Reads a create endpoint's form: `application/x-www-form-urlencoded` (the spec's), or
 * `multipart/form-data` (what `curl -F` sends), at most MAX_FORM_BYTES. One value per field (the first;
 * an empty one counts as not sent).
 *
 * @example const fields = await readCreateForm(c.req.raw); fields.get("note_id")
 */
export async function readCreateForm(request: Request): Promise<Map<string, string>> {
  const type = (request.headers.get("content-type") ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
    throw new ContentApiError(
      "unsupported_media_type",
      "unsupported_media_type",
      "send the fields as application/x-www-form-urlencoded (or multipart/form-data)",
    );
  }
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > MAX_FORM_BYTES) throw tooLarge();
  const body = await readBounded(request);
  const form =
    type === "multipart/form-data"
      ? await new Response(body, {
          headers: { "content-type": request.headers.get("content-type") ?? "" },
        }).formData()
      : new URLSearchParams(new TextDecoder().decode(body));
  const fields = new Map<string, string>();
  for (const [name, value] of form.entries()) {
    if (typeof value === "string" && value.trim() !== "" && !fields.has(name)) fields.set(name, value.trim());
  }
  return fields;
}

function tooLarge(): ContentApiError {
  return new ContentApiError(
    "payload_too_large",
    "payload_too_large",
    `the form is over ${MAX_FORM_BYTES} bytes`,
  );
}

/** The body, refused as soon as it passes the limit (a missing or false Content-Length changes nothing). */
async function readBounded(request: Request): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_FORM_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
