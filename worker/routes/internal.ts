import { createRoute, z } from "@hono/zod-openapi";
import {
  CompleteRequest,
  FailRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  InternalError,
  LeaseRequest,
  LeaseResponse,
} from "../../protocol/node.ts";
import { TranslateCapabilities, TranslateRequest, TranslateResponse } from "../../protocol/translate.ts";
import { ApiError } from "../errors.ts";
import { streamObject } from "../media/r2-stream.ts";
import { nodeAuth } from "../middleware/node-auth.ts";
import { createRouter } from "../router.ts";
import { completeLease, failLease, heartbeatLease, leasedTaskSource, leaseTasks } from "../tasks/leasing.ts";
import { translateWithWorkersAi, translationCapabilities, workersAi } from "../translation/workers-ai.ts";

/** Routes for inference nodes (NODE_TOKEN); hidden from the public OpenAPI document. */

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const LeaseParam = z.object({ lease_id: z.string().min(1).max(64) });
const errors = {
  401: { description: "not a node", content: json(InternalError) },
  410: { description: "lease expired or released", content: json(InternalError) },
};

const leaseRoute = createRoute({
  method: "post",
  path: "/lease",
  hide: true,
  request: { body: { required: true, content: json(LeaseRequest) } },
  responses: { 200: { description: "granted leases (maybe none)", content: json(LeaseResponse) }, ...errors },
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

const translateInfoRoute = createRoute({
  method: "get",
  path: "/translate",
  hide: true,
  responses: {
    200: { description: "what Workers AI translates here", content: json(TranslateCapabilities) },
    503: { description: "no Workers AI binding on this deployment", content: json(InternalError) },
  },
});

const translateRoute = createRoute({
  method: "post",
  path: "/translate",
  hide: true,
  request: { body: { required: true, content: json(TranslateRequest) } },
  responses: {
    200: { description: "the translation", content: json(TranslateResponse) },
    503: { description: "no Workers AI binding, or the model failed", content: json(InternalError) },
  },
});

export const internalRoutes = createRouter();
internalRoutes.use("*", nodeAuth());
internalRoutes
  .openapi(leaseRoute, async (c) => c.json({ leases: await leaseTasks(c.env, c.req.valid("json")) }, 200))
  .openapi(heartbeatRoute, async (c) => {
    const { node, progress } = c.req.valid("json");
    return c.json(await heartbeatLease(c.env, c.req.valid("param").lease_id, node, progress), 200);
  })
  .openapi(completeRoute, async (c) => {
    await completeLease(c.env, c.req.valid("param").lease_id, c.req.valid("json").result);
    return c.body(null, 204);
  })
  .openapi(failRoute, async (c) =>
    c.json(await failLease(c.env, c.req.valid("param").lease_id, c.req.valid("json")), 200),
  )
  .openapi(sourceRoute, async (c) => {
    const source = await leasedTaskSource(c.env, c.req.valid("param").lease_id);
    if (source.type !== "object") throw new ApiError("not_found", "this task has no stored media");
    return streamObject(c.env.MEDIA, source.object_key, c.req.header("range") ?? null);
  })
  // Workers AI translation for nodes with VOXEDGE_MT_BACKEND=workers-ai (protocol/translate.ts)
  .openapi(translateInfoRoute, (c) => c.json(translationCapabilities(workersAi(c.env)), 200))
  .openapi(translateRoute, async (c) =>
    c.json(await translateWithWorkersAi(workersAi(c.env), c.req.valid("json")), 200),
  );
