import { z } from "@hono/zod-openapi";
import { CONTENT_TYPE, MAX_CONTENT_TYPE_LENGTH } from "../media/content-types.ts";

export const PresignRequest = z
  .strictObject({
    filename: z.string().min(1).max(512).openapi({
      description: "original filename; only a sanitised slug of it names the object",
      example: "lecture.mp3",
    }),
    content_type: z
      .string()
      .max(MAX_CONTENT_TYPE_LENGTH)
      .regex(CONTENT_TYPE, "must be a Content-Type such as audio/mpeg or audio/webm;codecs=opus")
      .default("application/octet-stream")
      .openapi({
        description:
          "the PUT must send exactly this Content-Type, parameters included (compared byte for byte)",
        example: "audio/webm;codecs=opus",
      }),
  })
  .meta({ id: "PresignRequest" });
export type PresignRequest = z.infer<typeof PresignRequest>;

export const PresignResponse = z
  .object({
    object_key: z.string().openapi({ description: "pass to POST /transcribe/object after the PUT" }),
    upload_url: z.string().openapi({ description: "PUT the raw bytes here; it expires" }),
    expires_in: z.number().int().openapi({ description: "seconds until upload_url stops working" }),
  })
  .meta({ id: "PresignResponse" });
export type PresignResponse = z.infer<typeof PresignResponse>;

/** What the Worker's own signed PUT route answers (R2's S3 API answers in its own way). */
export const SignedPutResponse = z
  .object({ object_key: z.string(), size: z.number().int() })
  .meta({ id: "SignedPutResponse" });

/** An object key in a path; it contains slashes, so these routes match a wildcard (OpenAPI: one param). */
export const ObjectKeyParam = z.object({
  object_key: z.string().openapi({
    param: { name: "object_key", in: "path" },
    example: "uploads/6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a/lecture.mp3",
  }),
});

/**
 * The query of GET /media: `disposition` overrides how the file is presented (`inline` shows a PDF in
 * a frame, `attachment` makes a player's file download); `expires` and `sig` are a signed link's,
 * checked only when the deployment sets MEDIA_REQUIRE_SIGNATURE.
 */
export const MediaQuery = z.object({
  disposition: z.enum(["inline", "attachment"]).optional(),
  expires: z.string().optional(),
  sig: z.string().optional(),
});

/** The query of a signed upload_url, for the OpenAPI document: clients use upload_url as given. */
export const SignedPutQuery = z.object({
  expires: z.string().openapi({ param: { name: "expires", in: "query" }, description: "Unix seconds" }),
  ct: z.string().openapi({ param: { name: "ct", in: "query" }, description: "the signed Content-Type" }),
  owner: z
    .string()
    .openapi({ param: { name: "owner", in: "query" }, description: "the presigning key's id" }),
  sig: z.string().openapi({ param: { name: "sig", in: "query" }, description: "HMAC-SHA256, base64url" }),
});
