import { z } from "@hono/zod-openapi";

/** Longest `context` (prompt) accepted, in characters. */
export const MAX_CONTEXT_CHARS = 2000;

const language = z
  .string()
  .max(64)
  .nullable()
  .optional()
  .openapi({
    description:
      "short code or Title-case name of a supported language (vi, en, ja, ko, zh-CN, de, fr, Vietnamese...); " +
      "omitted, null or `auto` means auto-detect, which only the multilingual base model can do",
    example: "vi",
  });
const model = z.string().max(256).nullable().optional().openapi({
  description: "accepted and ignored: the deployment serves its registry's default model",
});
const context = z.string().max(MAX_CONTEXT_CHARS).default("").openapi({
  description: "context or hotword hint, given to decoding as its prompt",
});

export const TranscribeUrlRequest = z
  .strictObject({
    file_url: z.string().min(1).max(4096).openapi({
      description: "http(s) URL of the audio; checked during the request (reachable, not over 2 GB)",
      example: "https://example.com/lecture.mp3",
    }),
    language,
    model,
    context,
  })
  .meta({ id: "TranscribeUrlRequest" });
export type TranscribeUrlRequest = z.infer<typeof TranscribeUrlRequest>;

export const TranscribeObjectRequest = z
  .strictObject({
    object_key: z.string().min(1).max(512).openapi({
      description: "object_key from POST /uploads/presign, once the PUT to upload_url has completed",
    }),
    language,
    model,
    context,
  })
  .meta({ id: "TranscribeObjectRequest" });
export type TranscribeObjectRequest = z.infer<typeof TranscribeObjectRequest>;

/** The text fields of the upload form, checked once the whole form is read (other fields are ignored). */
export const UploadFormFields = z.object({ language, model, context });
export type UploadFormFields = z.infer<typeof UploadFormFields>;

/**
 * The upload form, for the OpenAPI document only: routes refer to it by $ref rather than as a zod
 * schema, because a zod form schema would make the router buffer the whole body, and the file must
 * stream. The text fields are UploadFormFields, validated after streaming.
 */
export const UploadForm = UploadFormFields.extend({
  file: z.string().openapi({ format: "binary", description: "audio or video file, at most 2 GB" }),
}).meta({ id: "UploadForm" });
export const uploadFormRef = { $ref: "#/components/schemas/UploadForm" };
