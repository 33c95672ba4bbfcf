import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import { type ApiError, validationError } from "../errors.ts";
import { uploadContentType } from "../media/content-types.ts";
import { declaredLength, streamToR2, tooLarge } from "../media/r2-upload.ts";
import { UploadFormFields } from "../schemas/transcribe.ts";
import { toValidationIssues } from "../validation.ts";
import {
  type FormPart,
  MultipartError,
  multipartBoundary,
  readFormParts,
  readTextPart,
} from "./multipart.ts";
import { newObjectKey } from "./object-keys.ts";

/** Room for the form's text fields and part headers around the file, in a declared Content-Length. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const MAX_FIELD_BYTES = 16 * 1024;

/** An upload form whose file is already in R2. */
export interface ReceivedUpload {
  objectKey: string;
  contentType: string;
  size: number;
  fields: UploadFormFields;
}

/**
 * Reads a multipart upload form as a stream: the `file` part goes straight into R2 under a new key while
 * it arrives; text fields may come before or after it. The fields are validated once the form is read,
 * and the stored file is deleted again if anything about the form is wrong (422).
 *
 * @example const upload = await receiveUploadForm(env, request, ownerKeyId)
 */
export async function receiveUploadForm(
  env: Env,
  request: Request,
  ownerKeyId: string,
): Promise<ReceivedUpload> {
  const length = declaredLength(request.headers);
  if (length !== null && length > MAX_MEDIA_BYTES + FORM_OVERHEAD_BYTES) throw tooLarge(MAX_MEDIA_BYTES);
  const boundary = multipartBoundary(request.headers.get("content-type"));
  if (!boundary || !request.body) {
    throw validationError([
      { loc: ["body"], msg: "expected a multipart/form-data body with a boundary", type: "value_error" },
    ]);
  }
  let stored: Omit<ReceivedUpload, "fields"> | null = null;
  try {
    const texts = new Map<string, string>();
    for await (const part of readFormParts(request.body, boundary)) {
      if (part.name !== "file") {
        if (!texts.has(part.name)) texts.set(part.name, await readTextPart(part, MAX_FIELD_BYTES));
      } else if (stored) {
        throw formError("file", "send one file per request", "value_error");
      } else {
        stored = await storeFile(env, part, ownerKeyId);
      }
    }
    if (!stored) throw formError("file", "Field required", "missing");
    if (stored.size === 0) throw formError("file", "the file is empty", "value_error");
    const input = Object.fromEntries(texts);
    const fields = UploadFormFields.safeParse(input);
    if (!fields.success) throw validationError(toValidationIssues(fields.error, "form", input));
    return { ...stored, fields: fields.data };
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
): Promise<Omit<ReceivedUpload, "fields">> {
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

function formError(field: string | null, msg: string, type: string): ApiError {
  return validationError([{ loc: field ? ["body", field] : ["body"], msg, type }]);
}
