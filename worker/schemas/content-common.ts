import { z } from "@hono/zod-openapi";

/** Every error of the content service: a short text, a stable key, the detail. */
export const ContentErrorBody = z
  .object({
    error: z.string().openapi({ description: "short description" }),
    error_key: z.string().openapi({ description: "stable machine-readable code (docs/api.md lists them)" }),
    message: z.string().openapi({ description: "what went wrong, in detail" }),
  })
  .meta({ id: "ContentError" });
export type ContentErrorBody = z.infer<typeof ContentErrorBody>;

export const contentErrorContent = { "application/json": { schema: ContentErrorBody } };
export const contentError = (description: string) => ({ description, content: contentErrorContent });
