import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import { ApiError, validationError } from "../errors.ts";
import { uploadContentType } from "../media/content-types.ts";
import { declaredLength, streamToR2, tooLarge } from "../media/r2-upload.ts";
import {
  type FormPart,
  MultipartError,
  multipartBoundary,
  readFormParts,
  readTextPart,
} from "./multipart.ts";
import { newObjectKey } from "./object-keys.ts";

/** Room for the text fields and part headers around the file, in a declared Content-Length. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const MAX_FIELD_BYTES = 16 * 1024;
/** Values kept per text field name (`timestamp_granularities[]` repeats). */
const MAX_VALUES_PER_FIELD = 8;

/**
 * Text fields allowed past the 16 KiB value limit (the compatible API's reference clips as data URLs):
 * each value up to `maxBytes`, all of them together up to `maxTotalBytes`; every other field keeps the
 * 16 KiB limit.
 */
export interface LargeFields {
  names: readonly string[];
  maxBytes: number;
  maxTotalBytes: number;
}

/** A multipart form whose file is already in R2; text fields keep every value, in order. */
export interface StreamedForm {
  objectKey: string;
  contentType: string;
  size: number;
  fields: Map<string, string[]>;
}

/**
 * Reads a multipart form as a stream: the `file` part goes straight into R2 under a new key while it
 * arrives (2 GB limit; a declared Content-Length over it is a 413 before reading), text fields may
 * come before or after it and keep repeated values (`timestamp_granularities[]`) for the caller to
 * validate. A form without a file, with two, or malformed is a 422 and stores nothing.
 *
 * @example const form = await receiveStreamedForm(env, request, keyId); form.fields.get("response_format")
 */
export async function receiveStreamedForm(
  env: Env,
  request: Request,
  ownerKeyId: string,
  largeFields?: LargeFields,
): Promise<StreamedForm> {
  const length = declaredLength(request.headers);
  // large fields are not counted in: a 2 GB file's form with reference clips is refused early
  if (length !== null && length > MAX_MEDIA_BYTES + FORM_OVERHEAD_BYTES) throw tooLarge(MAX_MEDIA_BYTES);
  const boundary = multipartBoundary(request.headers.get("content-type"));
  if (!boundary || !request.body) {
    throw formError(null, "expected a multipart/form-data body with a boundary", "value_error");
  }
  let stored: Omit<StreamedForm, "fields"> | null = null;
  try {
    const fields = new Map<string, string[]>();
    let largeBytes = 0;
    for await (const part of readFormParts(request.body, boundary)) {
      if (part.name === "file") {
        if (stored) throw formError("file", "send one file per request", "value_error");
        stored = await storeFile(env, part, ownerKeyId);
        continue;
      }
      const values = fields.get(part.name) ?? [];
      if (values.length >= MAX_VALUES_PER_FIELD) continue;
      const large = largeFields?.names.includes(part.name) ? largeFields : null;
      const value = await readTextPart(part, large ? large.maxBytes : MAX_FIELD_BYTES);
      if (large) {
        largeBytes += value.length;
        if (largeBytes > large.maxTotalBytes) {
          throw formError(
            part.name,
            `malformed form: ${large.names.join(", ")} together exceed ${large.maxTotalBytes} bytes`,
            "value_error",
          );
        }
      }
      values.push(value);
      fields.set(part.name, values);
    }
    if (!stored) throw formError("file", MISSING_FILE_MSG, "missing");
    if (stored.size === 0) throw formError("file", "the file is empty", "value_error");
    return { ...stored, fields };
  } catch (cause) {
    if (stored) await env.MEDIA.delete(stored.objectKey);
    if (cause instanceof MultipartError) {
      throw formError(cause.field ?? null, `malformed form: ${cause.message}`, "value_error");
    }
    throw cause;
  }
}

async function storeFile(
  env: Env,
  part: FormPart,
  ownerKeyId: string,
): Promise<Omit<StreamedForm, "fields">> {
  const objectKey = newObjectKey(part.filename);
  const contentType = uploadContentType(part.contentType);
  const { size } = await streamToR2(env.MEDIA, objectKey, part.body, {
    length: null,
    maxBytes: MAX_MEDIA_BYTES,
    httpMetadata: { contentType },
    customMetadata: { owner_key_id: ownerKeyId },
  });
  return { objectKey, contentType, size };
}

const MISSING_FILE_MSG = "Field required";

/** Whether `error` is receiveStreamedForm's refusal of a form without a `file` part. */
export function isMissingFile(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.issues.length === 1 &&
    error.issues[0]?.type === "missing" &&
    error.issues[0].loc.join(".") === "body.file"
  );
}

function formError(field: string | null, msg: string, type: string): ApiError {
  return validationError([{ loc: field ? ["body", field] : ["body"], msg, type }]);
}
