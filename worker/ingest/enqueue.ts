import { workerConfig } from "../../platform/config.ts";
import type { NewTask } from "../../platform/task-store.ts";
import { MAX_MEDIA_BYTES } from "../../protocol/media-limits.ts";
import type { TaskSource } from "../../protocol/task.ts";
import type { KnownSpeaker } from "../../protocol/transcribe-params.ts";
import { ApiError } from "../errors.ts";
import { tooLarge } from "../media/r2-upload.ts";
import { outboundFetch } from "../outbound-fetch.ts";
import type { TaskAccepted } from "../schemas/tasks.ts";
import type { TranscribeObjectRequest, TranscribeUrlRequest } from "../schemas/transcribe.ts";
import { jobSpeakers } from "../speakers/job-speakers.ts";
import { idempotent } from "../tasks/idempotency.ts";
import { submitTask } from "../tasks/submit.ts";
import { WEBHOOK_BACKLOG_RETRY_SEC, webhookBacklogRefusal } from "../webhooks/backlog.ts";
import { checkWebhookFields, type WebhookFields } from "../webhooks/target.ts";
import { type ResolvedTranscribeParams, resolveTranscribeParams } from "./transcribe-params.ts";
import { receiveUploadForm } from "./upload-form.ts";
import { findOwnUpload } from "./upload-registry.ts";
import { probeMediaUrl } from "./url-probe.ts";

/**
 * The three ways audio reaches a transcription task; each ends in submitTask and a TaskAccepted. An
 * Idempotency-Key makes a retried request return the task its first attempt created.
 */

/** An accepted enqueue; `replayed` when an earlier request with the same Idempotency-Key made the task. */
export interface Enqueued {
  accepted: TaskAccepted;
  replayed: boolean;
}

/**
 * Who asks, the Idempotency-Key they sent (null for none), and the origin links in the task's
 * webhook payload use (PUBLIC_BASE_URL or the request's own).
 */
export interface EnqueueCaller {
  ownerKeyId: string;
  idempotencyKey: string | null;
  origin: string;
}

/**
 * A request's webhook fields as the task's webhook (none when absent); a bad one is a 400, one from a
 * key at its cap of pending deliveries a 429 (worker/webhooks/backlog.ts).
 */
export async function requestedWebhook(
  env: Env,
  caller: EnqueueCaller,
  fields: WebhookFields,
): Promise<NewTask["webhook"]> {
  const verdict = checkWebhookFields(fields, workerConfig(env).urlAllowlist);
  if (!verdict.ok) throw new ApiError("bad_request", verdict.reason);
  if (!verdict.target) return null;
  const refusal = await webhookBacklogRefusal(env, caller.ownerKeyId);
  if (refusal)
    throw new ApiError("rate_limited", refusal, { "retry-after": String(WEBHOOK_BACKLOG_RETRY_SEC) });
  return { target: verdict.target, baseUrl: caller.origin };
}

async function submitTranscription(
  env: Env,
  ownerKeyId: string,
  params: ResolvedTranscribeParams & { known_speakers?: KnownSpeaker[] } & (
      | { file_url: string }
      | { object_key: string }
    ),
  source: TaskSource,
  webhook: NewTask["webhook"],
  upload?: NewTask["upload"],
): Promise<string> {
  const record = await submitTask(env, {
    ownerKeyId,
    kind: "transcribe",
    lane: "batch",
    params: { object_key: null, file_url: null, ...params, task: "transcribe", word_timestamps: false },
    source,
    webhook,
    upload,
  });
  return record.task_id;
}

async function enqueueOnce(
  env: Env,
  caller: EnqueueCaller,
  request: string,
  create: () => Promise<string>,
): Promise<Enqueued> {
  const { taskId, replayed } = await idempotent(
    env,
    { ownerKeyId: caller.ownerKeyId, key: caller.idempotencyKey, request },
    create,
  );
  return { accepted: { task_id: taskId, status: "queued" }, replayed };
}

/**
 * POST /transcribe: options first (cheap), then the URL's headers (one round trip per hop).
 *
 * @example await enqueueFromUrl(env, { ownerKeyId, idempotencyKey: null }, { file_url: "https://example.com/a.mp3", language: "vi", context: "" })
 */
export async function enqueueFromUrl(
  env: Env,
  caller: EnqueueCaller,
  request: TranscribeUrlRequest,
): Promise<Enqueued> {
  return enqueueOnce(env, caller, `url:${JSON.stringify(request)}`, async () => {
    const params = resolveTranscribeParams(env, request);
    const known_speakers = await jobSpeakers(env, caller.ownerKeyId, request.known_speakers);
    const webhook = await requestedWebhook(env, caller, request);
    await probeMediaUrl(request.file_url, {
      allowlist: workerConfig(env).urlAllowlist,
      fetch: outboundFetch(env),
    });
    // The node fetches the URL as given (its redirects may be short-lived signed links), guarding each hop.
    return submitTranscription(
      env,
      caller.ownerKeyId,
      { ...params, known_speakers, file_url: request.file_url },
      { type: "url", url: request.file_url },
      webhook,
    );
  });
}

/**
 * POST /transcribe/object: the key must be one this API key presigned (another key's is 404, like an
 * unknown one) and its bytes must be in R2 already (400 otherwise).
 */
export async function enqueueFromObject(
  env: Env,
  caller: EnqueueCaller,
  request: TranscribeObjectRequest,
): Promise<Enqueued> {
  return enqueueOnce(env, caller, `object:${JSON.stringify(request)}`, async () => {
    const params = resolveTranscribeParams(env, request);
    const known_speakers = await jobSpeakers(env, caller.ownerKeyId, request.known_speakers);
    const webhook = await requestedWebhook(env, caller, request);
    const upload = await findOwnUpload(env, request.object_key, caller.ownerKeyId);
    if (!upload) throw new ApiError("not_found", "no upload with this object_key for this API key");
    const head = await env.MEDIA.head(upload.objectKey);
    if (!head) throw new ApiError("bad_request", "not uploaded yet: PUT the file to upload_url first");
    if (head.size > MAX_MEDIA_BYTES) throw tooLarge(MAX_MEDIA_BYTES);
    if (head.size === 0) throw new ApiError("bad_request", "the uploaded object is empty");
    return submitTranscription(
      env,
      caller.ownerKeyId,
      { ...params, known_speakers, object_key: upload.objectKey },
      { type: "object", object_key: upload.objectKey },
      webhook,
    );
  });
}

/**
 * POST /transcribe/upload: the form's file is streamed into R2 first and removed if the task is refused.
 * A replayed Idempotency-Key answers before the body is read, so a retried upload is not stored twice;
 * the request is identified by its declared length (the body itself is not known yet).
 */
export async function enqueueFromUpload(
  env: Env,
  caller: EnqueueCaller,
  request: Request,
): Promise<Enqueued> {
  const declared = request.headers.get("content-length") ?? "chunked";
  return enqueueOnce(env, caller, `upload:${declared}`, async () => {
    const upload = await receiveUploadForm(env, request, caller.ownerKeyId);
    try {
      const params = resolveTranscribeParams(env, upload.fields);
      const known_speakers = await jobSpeakers(env, caller.ownerKeyId, upload.fields.known_speakers);
      const webhook = await requestedWebhook(env, caller, upload.fields);
      return await submitTranscription(
        env,
        caller.ownerKeyId,
        { ...params, known_speakers, object_key: upload.objectKey },
        { type: "object", object_key: upload.objectKey },
        webhook,
        { objectKey: upload.objectKey, contentType: upload.contentType },
      );
    } catch (cause) {
      await env.MEDIA.delete(upload.objectKey);
      throw cause;
    }
  });
}
