import { createRoute } from "@hono/zod-openapi";
import { defaultEnvelope } from "../error-envelope.ts";
import { presignUpload } from "../ingest/presign.ts";
import { receiveSignedPut } from "../ingest/signed-put.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import {
  apiKeySecurity,
  errorContent,
  payloadTooLarge,
  rateLimited,
  unauthorized,
  unprocessable,
} from "../schemas/common.ts";
import {
  ObjectKeyParam,
  PresignRequest,
  PresignResponse,
  SignedPutQuery,
  SignedPutResponse,
} from "../schemas/uploads.ts";

/** Mounted at /uploads. */

const presignRoute = createRoute({
  method: "post",
  path: "/presign",
  tags: ["speech-to-text"],
  summary: "Get an object key and a URL to PUT a large file to directly",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), enqueueRateLimit(), jsonBodyLimit()] as const,
  request: { body: { required: true, content: { "application/json": { schema: PresignRequest } } } },
  responses: {
    200: {
      description: "PUT the bytes to upload_url",
      content: { "application/json": { schema: PresignResponse } },
    },
    401: unauthorized,
    413: { description: "the JSON body is over 64 KiB", content: errorContent },
    422: unprocessable,
    429: rateLimited,
    503: { description: "storage for uploads is not configured", content: errorContent },
  },
});

/** Documented here; served by the wildcard below, since an object key spans several path segments. */
const signedPutRoute = createRoute({
  method: "put",
  path: "/put/{object_key}",
  tags: ["speech-to-text"],
  summary: "Receive the bytes of a presigned upload (the upload_url when R2's S3 API is not configured)",
  description:
    "Authorised by the URL's signature, not an API key. Content-Type must equal the presigned one.",
  request: {
    params: ObjectKeyParam,
    query: SignedPutQuery,
    body: { required: true, content: { "*/*": { schema: { type: "string", format: "binary" } } } },
  },
  responses: {
    200: { description: "stored", content: { "application/json": { schema: SignedPutResponse } } },
    400: { description: "the body did not match its Content-Length", content: errorContent },
    403: {
      description: "signature forged or altered, URL expired, or wrong Content-Type",
      content: errorContent,
    },
    404: { description: "not an upload URL", content: errorContent },
    409: {
      description: "this upload_url was already used (it stores its object once); presign again",
      content: errorContent,
    },
    413: payloadTooLarge,
  },
});

export const uploadRoutes = createRouter(defaultEnvelope).openapi(presignRoute, async (c) => {
  const body = c.req.valid("json");
  const presigned = await presignUpload(c.env, {
    ownerKeyId: c.get("apiKey").id,
    filename: body.filename,
    contentType: body.content_type,
    requestUrl: c.req.url,
  });
  return c.json(presigned, 200);
});
uploadRoutes.openAPIRegistry.registerPath(signedPutRoute);
uploadRoutes.put("/put/*", async (c) => c.json(await receiveSignedPut(c.env, c.req.raw), 200));
