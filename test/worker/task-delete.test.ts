/**
 * DELETE /transcribe/{id} and DELETE /v1/create/tasks/{id}: a queued task leaves the line, a running
 * one's node is told to stop and its late completion refused, and afterwards the id is unknown on every
 * route, its stored upload and outputs are gone from R2 and its D1 row is gone. A delete cut short is
 * finished by the cron sweep; RETENTION_DAYS deletes old media and outputs but keeps the rows.
 */
import {
  createExecutionContext,
  createScheduledController,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import { jobState } from "../../platform/stubs.ts";
import { changeTaskStatus, createTask } from "../../platform/task-store.ts";
import type { Lease } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import worker from "../../worker/index.ts";
import { waitForTaskEnd } from "../../worker/openai/sync.ts";
import type { Note } from "../../worker/schemas/notes.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { sweepExpiredMedia } from "../../worker/tasks/retention.ts";
import {
  bearer,
  call,
  createKey,
  createTranscription,
  deliver,
  dispatcherStub,
  resetDispatcher,
  TRANSCRIBE_PARAMS,
} from "./helpers.ts";
import { accepted, bytes, callMinted } from "./ingest-helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

beforeEach(async () => {
  await resetDispatcher();
});

/** Uploads audio through POST /transcribe/upload; the task and the R2 key of its stored upload. */
async function uploadTask(key: string): Promise<{ taskId: string; objectKey: string }> {
  const form = new FormData();
  form.append("file", new File([bytes(4096, 3)], "Talk.mp3", { type: "audio/mpeg" }));
  const { task_id } = await accepted(
    await call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form }),
  );
  const row = await db(env).select().from(jobs).where(eq(jobs.task_id, task_id)).get();
  if (row?.source.type !== "object") throw new Error("an upload task stores an object source");
  expect(await env.MEDIA.head(row.source.object_key)).not.toBeNull();
  return { taskId: task_id, objectKey: row.source.object_key };
}

/** Leases `taskId`, failing any stray task of an earlier test out of the way. */
async function leaseTask(node: TestNode, taskId: string, kinds: TaskKind[] = ["transcribe"]): Promise<Lease> {
  for (let i = 0; i < 20; i++) {
    const [lease] = await node.lease(1, 2_000, kinds);
    if (!lease) break;
    if (lease.task_id === taskId) return lease;
    await node.fail(lease.lease_id, "invalid_params", "a stray task of an earlier test");
  }
  throw new Error(`task ${taskId} was never leased`);
}

const del = (path: string, key: string) => call(path, { method: "DELETE", headers: bearer(key) });

async function rowOf(taskId: string) {
  return (await db(env).select().from(jobs).where(eq(jobs.task_id, taskId)).get()) ?? null;
}

/** The task ids waiting in the Dispatcher's line. */
async function waitingIds(): Promise<string[]> {
  return runInDurableObject(dispatcherStub(), async (_instance, state) =>
    state.storage.sql
      .exec<{ task_id: string }>("SELECT task_id FROM waiting")
      .toArray()
      .map((r) => r.task_id),
  );
}

/** Every public read of a transcription answers 404, and /history does not list it. */
async function expectTranscriptionGone(taskId: string, key: string): Promise<void> {
  for (const path of [`/transcribe/${taskId}`, `/transcribe/${taskId}/subtitles?format=srt`]) {
    const response = await call(path, { headers: bearer(key) });
    expect(response.status, path).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("not_found");
  }
  const history = (await (await call("/history?limit=100", { headers: bearer(key) })).json()) as {
    jobs: { task_id: string }[];
  };
  expect(history.jobs.map((j) => j.task_id)).not.toContain(taskId);
  expect(await rowOf(taskId)).toBeNull();
}

async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("DELETE /transcribe/{task_id}", () => {
  it("a queued upload: 204, out of the line, upload gone, 404 everywhere after, a repeat 404", async () => {
    const { key } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    await deliver([taskId]);
    expect(await waitingIds()).toContain(taskId);

    const response = await del(`/transcribe/${taskId}`, key);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await waitingIds()).not.toContain(taskId);
    expect(await env.MEDIA.head(objectKey)).toBeNull();
    await expectTranscriptionGone(taskId, key);
    // a late Queue delivery does not bring it back into the line
    await deliver([taskId]);
    expect(await waitingIds()).not.toContain(taskId);

    const again = await del(`/transcribe/${taskId}`, key);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { code: string }).code).toBe("not_found");
  });

  it("a running task: its node is told to stop on the next heartbeat, its late completion is refused", async () => {
    const { key } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    await deliver([taskId]);
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect((await node.heartbeat(lease.lease_id, 30)).status).toBe(200);

    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(204);
    expect(await env.MEDIA.head(objectKey)).toBeNull();

    const beat = await node.heartbeat(lease.lease_id, 60);
    expect(beat.status).toBe(200);
    expect(((await beat.json()) as { cancel: boolean }).cancel).toBe(true);
    const late = await node.complete(lease.lease_id, sampleResult("words that must not come back"));
    expect(late.status).toBe(410);
    await expectTranscriptionGone(taskId, key);
    expect(await jobState(env, taskId).read()).toBeNull();
  });

  it("a running task whose node completes before its next heartbeat: the completion is refused", async () => {
    const { key, id } = await createKey();
    const task = await createTranscription(id);
    await deliver([task.task_id]);
    const node = new TestNode();
    const lease = await leaseTask(node, task.task_id);
    expect((await del(`/transcribe/${task.task_id}`, key)).status).toBe(204);
    expect((await node.complete(lease.lease_id, sampleResult("resurrected"))).status).toBe(410);
    expect(await rowOf(task.task_id)).toBeNull();
    expect(await jobState(env, task.task_id).read()).toBeNull();
  });

  it("a done task: result, media link and history entry go", async () => {
    const { key } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    await deliver([taskId]);
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect((await node.complete(lease.lease_id, sampleResult("the finished words"))).status).toBe(204);
    const polled = (await (await call(`/transcribe/${taskId}`, { headers: bearer(key) })).json()) as {
      result: { audio_url: string };
    } & TaskStatusResponse;
    expect(polled.status).toBe("done");
    expect((await callMinted(polled.result.audio_url)).status).toBe(200);

    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(204);
    await expectTranscriptionGone(taskId, key);
    expect(await env.MEDIA.head(objectKey)).toBeNull();
    expect((await callMinted(polled.result.audio_url)).status).toBe(404);
  });

  it("another key's task, an unknown id and a content task id are 404, and the task is untouched", async () => {
    const owner = await createKey();
    const stranger = await createKey();
    const { taskId, objectKey } = await uploadTask(owner.key);
    expect((await del(`/transcribe/${taskId}`, stranger.key)).status).toBe(404);
    expect((await del(`/v1/create/tasks/${taskId}`, owner.key)).status).toBe(404);
    expect((await del(`/transcribe/${crypto.randomUUID()}`, owner.key)).status).toBe(404);
    expect((await call(`/transcribe/${taskId}`, { headers: bearer(owner.key) })).status).toBe(200);
    expect(await env.MEDIA.head(objectKey)).not.toBeNull();
  });

  it("an upload two tasks were made from stays until the second task is deleted", async () => {
    const { key, id } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    const twin = await createTask(env, {
      ownerKeyId: id,
      kind: "transcribe",
      lane: "batch",
      params: TRANSCRIBE_PARAMS,
      source: { type: "object", object_key: objectKey },
    });
    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(204);
    expect(await env.MEDIA.head(objectKey)).not.toBeNull();
    expect((await del(`/transcribe/${twin.task_id}`, key)).status).toBe(204);
    expect(await env.MEDIA.head(objectKey)).toBeNull();
  });

  it("a synchronous caller waiting on the task is woken at once, with no record", async () => {
    const { key, id } = await createKey();
    const task = await createTranscription(id);
    // a wait far longer than the test may run: only the wake-up can end it in time
    const waiting = waitForTaskEnd(env, task.task_id, 600_000);
    // the delete comes once the wait is registered in the object (not before it read the record)
    const registered = () =>
      runInDurableObject(jobState(env, task.task_id), (instance) => {
        return (instance as unknown as { waiters: Set<unknown> }).waiters.size;
      });
    await expect.poll(registered, { timeout: 30_000 }).toBe(1);
    expect((await del(`/transcribe/${task.task_id}`, key)).status).toBe(204);
    expect(await waiting).toBeNull();
  });

  it("a delete cut short before its mark leaves the task whole, and a retried DELETE deletes it", async () => {
    const { key } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    // as if the Worker died right after step 1 (JobState erased): D1 still answers for the task
    await jobState(env, taskId).erase();
    const polled = await call(`/transcribe/${taskId}`, { headers: bearer(key) });
    expect(polled.status).toBe(200);
    expect(((await polled.json()) as { status: string }).status).toBe("queued");
    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(204);
    expect(await env.MEDIA.head(objectKey)).toBeNull();
    await expectTranscriptionGone(taskId, key);
  });

  it("a delete cut short after its mark is answered 404 and finished by the cron sweep", async () => {
    const { key } = await createKey();
    const { taskId, objectKey } = await uploadTask(key);
    // as if the Worker died right after step 2 (JobState erased, row marked)
    await jobState(env, taskId).erase();
    await db(env).update(jobs).set({ deleted_at: Date.now() }).where(eq(jobs.task_id, taskId));
    expect((await call(`/transcribe/${taskId}`, { headers: bearer(key) })).status).toBe(404);
    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(404);
    expect(await env.MEDIA.head(objectKey)).not.toBeNull();

    await runCron();
    expect(await env.MEDIA.head(objectKey)).toBeNull();
    expect(await rowOf(taskId)).toBeNull();
  });
});

describe("DELETE /v1/create/tasks/{task_id}", () => {
  it("a finished short: 204, its outputs gone from R2, its result 404 (task_not_found), a repeat 404", async () => {
    const { key } = await createKey();
    const note = (await (
      await call("/v1/notes", {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify({ content: "The Mekong flows through six countries." }),
      })
    ).json()) as Note;
    const create = await call("/v2/create/shorts", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ note_id: note.note_id, voice_id: "en-male" }).toString(),
    });
    expect(create.status).toBe(200);
    const taskId = ((await create.json()) as { data: { task_id: string } }).data.task_id;
    const node = new TestNode();
    const lease = await leaseTask(node, taskId, ["shorts", "quiz_video", "slide"]);
    const upload = await node.uploadOutput(lease.lease_id, "short.mp4", bytes(3000, 4), "video/mp4");
    const stored = (await upload.json()) as { object_key: string; bytes: number; content_type: string };
    const done = await node.complete(
      lease.lease_id,
      {
        note_id: note.note_id,
        title: "Mekong",
        language: "en",
        duration: 3,
        outputs: [{ role: "video", ...stored }],
      },
      "shorts",
    );
    expect(done.status).toBe(204);
    expect((await env.MEDIA.list({ prefix: `outputs/${taskId}/` })).objects).toHaveLength(1);

    const stranger = await createKey();
    expect((await del(`/v1/create/tasks/${taskId}`, stranger.key)).status).toBe(404);
    expect((await del(`/transcribe/${taskId}`, key)).status).toBe(404);

    expect((await del(`/v1/create/tasks/${taskId}`, key)).status).toBe(204);
    expect((await env.MEDIA.list({ prefix: `outputs/${taskId}/` })).objects).toHaveLength(0);
    const result = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
    expect(result.status).toBe(404);
    expect(((await result.json()) as { error_key: string }).error_key).toBe("task_not_found");
    const again = await del(`/v1/create/tasks/${taskId}`, key);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error_key: string }).error_key).toBe("task_not_found");
    expect(await rowOf(taskId)).toBeNull();
    // the note it was made from is the user's own, and stays
    expect((await call(`/v1/notes/${note.note_id}`, { headers: bearer(key) })).status).toBe(200);
  });
});

describe("RETENTION_DAYS", () => {
  it("deletes old ended tasks' uploads and outputs, keeps their rows, and leaves the rest", async () => {
    const { key } = await createKey();
    const old = await uploadTask(key);
    const recent = await uploadTask(key);
    const running = await uploadTask(key);
    const days = 24 * 3600 * 1000;
    for (const { taskId } of [old, recent]) {
      await changeTaskStatus(env, taskId, { status: "processing" });
      await changeTaskStatus(env, taskId, {
        status: "done",
        result: TranscriptionResult.parse(sampleResult()),
      });
    }
    await db(env)
      .update(jobs)
      .set({ created_at: Date.now() - 3 * days })
      .where(eq(jobs.task_id, old.taskId));
    await db(env)
      .update(jobs)
      .set({ created_at: Date.now() - 3 * days })
      .where(eq(jobs.task_id, running.taskId));
    await env.MEDIA.put(`outputs/${old.taskId}/extra.mp4`, bytes(10));

    // off by default: nothing goes
    expect(await sweepExpiredMedia(env)).toBe(0);
    expect(await env.MEDIA.head(old.objectKey)).not.toBeNull();

    const retaining = { ...env, RETENTION_DAYS: "2" };
    expect(await sweepExpiredMedia(retaining)).toBe(1);
    expect(await env.MEDIA.head(old.objectKey)).toBeNull();
    expect((await env.MEDIA.list({ prefix: `outputs/${old.taskId}/` })).objects).toHaveLength(0);
    expect(await env.MEDIA.head(recent.objectKey)).not.toBeNull();
    expect(await env.MEDIA.head(running.objectKey)).not.toBeNull();
    // the row, the history entry and the transcript stay; the media link answers 404
    expect((await rowOf(old.taskId))?.media_deleted_at).toEqual(expect.any(Number));
    const polled = await call(`/transcribe/${old.taskId}`, { headers: bearer(key) });
    expect(polled.status).toBe(200);
    const body = (await polled.json()) as { result: { text: string; audio_url: string } };
    expect(body.result.text).toBe(sampleResult().text);
    expect((await callMinted(body.result.audio_url)).status).toBe(404);
    // each task is swept once
    expect(await sweepExpiredMedia(retaining)).toBe(0);
  });
});
