import { env } from "cloudflare:workers";
import OpenAI from "openai";
import { beforeEach, describe, expect, it } from "vitest";
import { workerConfig } from "../../platform/config.ts";
import { TASK_FAILURE_CODES, TASK_FAILURES, type TaskFailureCode } from "../../protocol/task-failure.ts";
import { ApiError } from "../../worker/errors.ts";
import { FAILURE_VIEWS } from "../../worker/tasks/failure-views.ts";
import {
  bearer,
  call,
  createKey,
  createTranscription,
  deliver,
  NODE_TOKEN,
  resetDispatcher,
} from "./helpers.ts";
import { TestNode } from "./node-client.ts";
import { clip, openai } from "./openai-helpers.ts";

/**
 * Every failure code a node can report reaches each API as the one table (FAILURE_VIEWS) says: the
 * asynchronous poll shows the code, the OpenAI-compatible endpoint answers its status and envelope.
 * Retryable codes are retried until the attempts are spent, the rest end the task at the first report.
 */

beforeEach(resetDispatcher);

/** What a caller of the synchronous endpoint should see, written out independently of the table. */
const SYNC_STATUS: Record<TaskFailureCode, number> = {
  media_unreachable: 400,
  media_unreadable: 400,
  media_empty: 400,
  media_too_large: 413,
  unsupported_media: 400,
  audio_too_long: 413,
  speaker_reference_invalid: 400,
  unsupported_language: 400,
  language_required: 400,
  invalid_params: 500,
  unsupported_kind: 503,
  decoder_error: 500,
  cancelled: 499,
  node_lost: 503,
  node_shutdown: 503,
  queue_unavailable: 503,
  queue_undeliverable: 503,
  internal_error: 500,
  task_stalled: 500,
  // The remote tier's trouble is the deployment's, not a crash: as a lost node.
  remote_unavailable: 503,
  remote_refused: 503,
  // Content-render codes never end a transcription; if one did, it is the server's fault.
  note_too_short: 500,
  tts_unavailable: 500,
  tts_failed: 500,
  llm_failed: 500,
  // a translation into a language the node's backend cannot reach from the speech's: the request's target_language
  translation_unavailable: 400,
  translation_failed: 500,
  renderer_unavailable: 500,
  render_failed: 500,
  slides_failed: 500,
};

/** Fails every attempt of the next task with `code`; returns how many attempts it took. */
async function failEveryAttempt(node: TestNode, code: TaskFailureCode): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const [lease] = await node.lease(1, 10_000);
    if (!lease) throw new Error("no lease");
    const response = await node.fail(lease.lease_id, code, `simulated ${code}`);
    expect(response.status).toBe(200);
    const { requeued } = (await response.json()) as { requeued: boolean };
    if (!requeued) return attempt;
  }
}

describe.each(TASK_FAILURE_CODES)("failure code %s", (code) => {
  const expectedAttempts = TASK_FAILURES[code].retryable ? workerConfig(env).maxTaskAttempts : 1;

  it("shows as failed with its code and message on GET /transcribe/{id}", async () => {
    const { id, key } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    expect(await failEveryAttempt(new TestNode(), code)).toBe(expectedAttempts);
    const response = await call(`/transcribe/${task.task_id}`, { headers: bearer(key) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "failed",
      error_code: code,
      error: `simulated ${code}`,
      queue: null,
    });
  });

  it("answers the synchronous endpoint with the status and OpenAI code of the table", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const view = FAILURE_VIEWS[code].sync;
    const [error, attempts] = await Promise.all([
      client.audio.transcriptions.create({ file: clip(), model: "whisper-1" }).catch((e: unknown) => e),
      failEveryAttempt(new TestNode(), code),
    ]);
    expect(attempts).toBe(expectedAttempts);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const apiError = error as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(SYNC_STATUS[code]);
    expect(new ApiError(view.error, "").status).toBe(SYNC_STATUS[code]);
    expect(apiError.error).toMatchObject({ code: view.openaiCode, param: view.param });
    expect(apiError.message).toContain(`simulated ${code}`);
    // A failed task is never re-run by the SDK: that would upload and decode the file again.
    expect(apiError.headers?.get("x-should-retry")).toBe("false");
  });
});

describe("the audio duration cap", () => {
  it("goes to the node in every lease as the deployment's MAX_AUDIO_DURATION_SEC", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const [lease] = await new TestNode().lease(1, 10_000);
    expect(lease?.max_audio_duration_sec).toBe(14_400);
    expect(workerConfig(env).maxAudioDurationSec).toBe(14_400);
  });
});

describe("the failure protocol", () => {
  it("refuses a failure without a known code (no free-text classification)", async () => {
    const { id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const [lease] = await node.lease(1, 10_000);
    const response = await call(`/internal/v1/leases/${lease!.lease_id}/fail`, {
      method: "POST",
      headers: { authorization: `Bearer ${NODE_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ error: "cannot decode the media as audio", retryable: false }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "validation_error" });
  });
});
