import { z } from "@hono/zod-openapi";

export const HealthResponse = z
  .object({
    status: z.string().openapi({ example: "ok" }),
    asr_model: z.string(),
    /** Extension: a node serves a synthetic stand-in (random weights) for `asr_model`. */
    asr_synthetic: z.boolean().default(false),
    /** Extension: the command that puts the real model in place while `asr_synthetic`; empty otherwise. */
    asr_fix_command: z.string().default(""),
    asr_loaded: z.boolean(),
    gpu_free_gb: z.number(),
    busy: z.boolean(),
    mt_loaded: z.boolean().default(false),
    mt_model: z.string().default(""),
    job_queue: z.enum(["ready", "reconnecting", "unknown"]).default("unknown"),
    job_queue_error: z.string().default(""),
  })
  .meta({ id: "HealthResponse" });
export type HealthResponse = z.infer<typeof HealthResponse>;

export const ModelInfo = z
  .object({
    id: z.string(),
    label: z.string(),
    kind: z.enum(["local", "local_base", "http"]),
    ready: z.boolean(),
    /** Extension: a node serves a synthetic stand-in for it; `label` then says so and how to fix it. */
    synthetic: z.boolean().default(false),
    supports_streaming: z.boolean().default(false),
    supports_timestamps: z.boolean().default(false),
    supports_context: z.boolean().default(false),
  })
  .meta({ id: "ModelInfo" });

export const ModelsResponse = z
  .object({ models: z.array(ModelInfo), default_model: z.string() })
  .meta({ id: "ModelsResponse" });
export type ModelsResponse = z.infer<typeof ModelsResponse>;
