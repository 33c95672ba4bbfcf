import { validationError } from "../errors.ts";
import { UploadFormFields } from "../schemas/transcribe.ts";
import { toValidationIssues } from "../validation.ts";
import { receiveStreamedForm } from "./streamed-form.ts";

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
  const { fields: texts, ...stored } = await receiveStreamedForm(env, request, ownerKeyId);
  const input = Object.fromEntries([...texts].map(([name, values]) => [name, values[0]]));
  const fields = UploadFormFields.safeParse(input);
  if (!fields.success) {
    await env.MEDIA.delete(stored.objectKey);
    throw validationError(toValidationIssues(fields.error, "form", input));
  }
  return { ...stored, fields: fields.data };
}
