import { createRoute, z } from "@hono/zod-openapi";
import {
  CompleteRequest,
  FailRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaseRequest,
  LeaseResponse,
  NodeHeartbeatRequest,
  NodeHeartbeatResponse,
  NodeWhoami,
  PartialTranscript,
} from "../../protocol/node.ts";
import { TranslateCapabilities, TranslateRequest, TranslateResponse } from "../../protocol/translate.ts";
import { storedPreviews, storePreview } from "../content/catalog.ts";
import { defaultEnvelope } from "../error-envelope.ts";
import { ApiError, ErrorBody, HTTPValidationError } from "../errors.ts";
import { streamObject } from "../media/r2-stream.ts";
import { nodeAuth } from "../middleware/node-auth.ts";
import { createRouter } from "../router.ts";
import {
  completeLease,
  failLease,
  heartbeatLease,
  heartbeatNode,
  leasedKnownSpeaker,
  leasedTaskSource,
  leaseTasks,
  reportPartial,
  storeLeaseOutput,
} from "../tasks/leasing.ts";
import { translateWithWorkersAi, translationCapabilities, workersAi } from "../translation/workers-ai.ts";

/** Mounted at /internal/v1: routes for inference nodes (node tokens); hidden from the public OpenAPI document. */

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
/** A lease id: its issuing Dispatcher's id (64 hex), a dot, a UUID (platform/dispatch-routing.ts). */
const LeaseParam = z.object({ lease_id: z.string().min(1).max(128) });
const errors = {
  401: { description: "not a node", content: json(ErrorBody) },
  409: { description: "the completion is not of the lease's task kind", content: json(ErrorBody) },
  410: { description: "lease expired, released, or held by another node identity", content: json(ErrorBody) },
  422: { description: "the body does not match its schema", content: json(HTTPValidationError) },
};

const leaseRoute = createRoute({
  method: "post",
  path: "/lease",
  hide: true,
  request: { body: { required: true, content: json(LeaseRequest) } },
  responses: { 200: { description: "granted leases (maybe none)", content: json(LeaseResponse) }, ...errors },
});

const whoamiRoute = createRoute({
  method: "get",
  path: "/whoami",
  hide: true,
  responses: {
    200: { description: "the node identity of this token", content: json(NodeWhoami) },
    ...errors,
  },
});

const nodeHeartbeatRoute = createRoute({
  method: "post",
  path: "/heartbeat",
  hide: true,
  request: { body: { required: true, content: json(NodeHeartbeatRequest) } },
  responses: {
    200: { description: "each lease extended, cancelled or gone", content: json(NodeHeartbeatResponse) },
    ...errors,
  },
});

const heartbeatRoute = createRoute({
  method: "post",
  path: "/leases/{lease_id}/heartbeat",
  hide: true,
  request: { params: LeaseParam, body: { required: true, content: json(HeartbeatRequest) } },
  responses: { 200: { description: "lease extended", content: json(HeartbeatResponse) }, ...errors },
});

const completeRoute = createRoute({
  method: "post",
  path: "/leases/{lease_id}/complete",
  hide: true,
  request: { params: LeaseParam, body: { required: true, content: json(CompleteRequest) } },
  responses: { 204: { description: "result stored" }, ...errors },
});

const partialRoute = createRoute({
  method: "post",
  path: "/leases/{lease_id}/partial",
  hide: true,
  request: { params: LeaseParam, body: { required: true, content: json(PartialTranscript) } },
  responses: { 204: { description: "kept for the caller streaming the task" }, ...errors },
});

const failRoute = createRoute({
  method: "post",
  path: "/leases/{lease_id}/fail",
  hide: true,
  request: { params: LeaseParam, body: { required: true, content: json(FailRequest) } },
  responses: {
    200: { description: "failure recorded", content: json(z.object({ requeued: z.boolean() })) },
    ...errors,
  },
});

const sourceRoute = createRoute({
  method: "get",
  path: "/leases/{lease_id}/source",
  hide: true,
  request: { params: LeaseParam },
  responses: { 200: { description: "media bytes (Range honoured)" }, ...errors },
});

const knownSpeakerRoute = createRoute({
  method: "get",
  path: "/leases/{lease_id}/speakers/{index}",
  hide: true,
  request: { params: LeaseParam.extend({ index: z.coerce.number().int().min(0).max(3) }) },
  responses: { 200: { description: "a known speaker's reference clip, as sent" }, ...errors },
});

const OutputParam = LeaseParam.extend({ name: z.string().min(1).max(80) });
const outputRoute = createRoute({
  method: "put",
  path: "/leases/{lease_id}/outputs/{name}",
  hide: true,
  request: { params: OutputParam },
  responses: {
    200: {
      description: "stored; list it in the completion",
      content: json(z.object({ object_key: z.string(), bytes: z.number(), content_type: z.string() })),
    },
    ...errors,
  },
});

const PreviewFileParam = z.object({ file: z.string().min(1).max(100) });
const previewsRoute = createRoute({
  method: "get",
  path: "/previews",
  hide: true,
  responses: {
    200: {
      description: "catalog previews already stored",
      content: json(z.object({ files: z.array(z.string()) })),
    },
    ...errors,
  },
});
const previewUploadRoute = createRoute({
  method: "put",
  path: "/previews/{file}",
  hide: true,
  request: { params: PreviewFileParam },
  responses: { 204: { description: "stored" }, ...errors },
});

const translateInfoRoute = createRoute({
  method: "get",
  path: "/translate",
  hide: true,
  responses: {
    200: { description: "what Workers AI translates here", content: json(TranslateCapabilities) },
    503: { description: "no Workers AI binding on this deployment", content: json(ErrorBody) },
  },
});

const translateRoute = createRoute({
  method: "post",
  path: "/translate",
  hide: true,
  request: { body: { required: true, content: json(TranslateRequest) } },
  responses: {
    200: { description: "the translation", content: json(TranslateResponse) },
    503: { description: "no Workers AI binding, or the model failed", content: json(ErrorBody) },
  },
});

export const internalRoutes = createRouter(defaultEnvelope);
internalRoutes.use("*", nodeAuth());
internalRoutes
  .openapi(whoamiRoute, (c) => c.json(NodeWhoami.parse(c.get("node")), 200))
  .openapi(leaseRoute, async (c) =>
    c.json({ leases: await leaseTasks(c.env, c.req.valid("json"), c.get("node")) }, 200),
  )
  .openapi(nodeHeartbeatRoute, async (c) => {
    const { node: health, leases } = c.req.valid("json");
    const reports = leases.map(({ lease_id, progress, step, estimated_time_sec }) => ({
      leaseId: lease_id,
      report: { progress, step, etaSec: estimated_time_sec },
    }));
    return c.json({ leases: await heartbeatNode(c.env, c.get("node"), health, reports) }, 200);
  })
  .openapi(heartbeatRoute, async (c) => {
    const { node: health, progress, step, estimated_time_sec } = c.req.valid("json");
    const report = { progress, step, etaSec: estimated_time_sec };
    const leaseId = c.req.valid("param").lease_id;
    return c.json(await heartbeatLease(c.env, leaseId, c.get("node"), health, report), 200);
  })
  .openapi(completeRoute, async (c) => {
    await completeLease(c.env, c.req.valid("param").lease_id, c.get("node"), c.req.valid("json"));
    return c.body(null, 204);
  })
  .openapi(partialRoute, async (c) => {
    await reportPartial(c.env, c.req.valid("param").lease_id, c.get("node"), c.req.valid("json"));
    return c.body(null, 204);
  })
  .openapi(failRoute, async (c) =>
    c.json(await failLease(c.env, c.req.valid("param").lease_id, c.get("node"), c.req.valid("json")), 200),
  )
  .openapi(outputRoute, async (c) => {
    const { lease_id, name } = c.req.valid("param");
    return c.json(await storeLeaseOutput(c.env, lease_id, c.get("node"), name, c.req.raw), 200);
  })
  .openapi(previewsRoute, async (c) => c.json({ files: await storedPreviews(c.env) }, 200))
  .openapi(previewUploadRoute, async (c) => {
    await storePreview(c.env, c.req.valid("param").file, c.req.raw);
    return c.body(null, 204);
  })
  .openapi(sourceRoute, async (c) => {
    const source = await leasedTaskSource(c.env, c.req.valid("param").lease_id, c.get("node"));
    if (source.type !== "object") throw new ApiError("not_found", "this task has no stored media");
    return streamObject(c.env.MEDIA, source.object_key, c.req.header("range") ?? null);
  })
  .openapi(knownSpeakerRoute, async (c) => {
    const { lease_id, index } = c.req.valid("param");
    const objectKey = await leasedKnownSpeaker(c.env, lease_id, c.get("node"), index);
    return streamObject(c.env.MEDIA, objectKey, null);
  })
  // Workers AI translation for nodes with VOXEDGE_MT_BACKEND=workers-ai (protocol/translate.ts)
  .openapi(translateInfoRoute, (c) => c.json(translationCapabilities(workersAi(c.env)), 200))
  .openapi(translateRoute, async (c) =>
    c.json(await translateWithWorkersAi(workersAi(c.env), c.req.valid("json")), 200),
  );
