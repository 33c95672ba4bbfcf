import { z } from "@hono/zod-openapi";
import {
  MAX_WEBHOOK_HEADER_NAME_CHARS,
  MAX_WEBHOOK_HEADER_VALUE_CHARS,
  MAX_WEBHOOK_URL_CHARS,
} from "../webhooks/limits.ts";

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

const known_speakers = z
  .string()
  .max(2048)
  .nullable()
  .optional()
  .openapi({
    description:
      "Voxedge extension: enrolled speakers (POST /v1/speakers) to name diarized speakers after, comma-separated, " +
      "or `all`; at most 16 voices. A segment spoken by one of them carries `speaker_name` beside its SPEAKER_nn " +
      "label. A name the key has not enrolled is a 400",
    example: "agent,customer",
  });

/** The optional webhook of a task (docs/api.md "Webhooks"); checked further by worker/webhooks/target.ts. */
export const webhookFields = {
  webhook_url: z.string().min(1).max(MAX_WEBHOOK_URL_CHARS).nullable().optional().openapi({
    description:
      "http(s) URL POSTed a signed JSON event (Standard Webhooks) when the task ends; same SSRF guard as file_url, redirects not followed",
    example: "https://example.com/hooks/voxedge",
  }),
  webhook_auth_header_name: z.string().max(MAX_WEBHOOK_HEADER_NAME_CHARS).nullable().optional().openapi({
    description: "a header sent as given with every delivery (with webhook_auth_header_value)",
    example: "Authorization",
  }),
  webhook_auth_header_value: z.string().max(MAX_WEBHOOK_HEADER_VALUE_CHARS).nullable().optional().openapi({
    description: "its value; a credential, never shown back",
  }),
};

export const TranscribeUrlRequest = z
  .strictObject({
    file_url: z.string().min(1).max(4096).openapi({
      description: "http(s) URL of the audio; checked during the request (reachable, not over 2 GB)",
      example: "https://example.com/lecture.mp3",
    }),
    language,
    model,
    context,
    ...webhookFields,
    known_speakers,
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
    ...webhookFields,
    known_speakers,
  })
  .meta({ id: "TranscribeObjectRequest" });
export type TranscribeObjectRequest = z.infer<typeof TranscribeObjectRequest>;

/** The text fields of the upload form, checked once the whole form is read (other fields are ignored). */
export const UploadFormFields = z.object({ language, model, context, ...webhookFields, known_speakers });
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
