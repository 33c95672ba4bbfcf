/**
 * #29.6 D1 keeps metadata, not transcripts: a finished 10-minute transcription's result goes to R2 and
 * its D1 row stays small; rows stored before that (result inline) read as before; a poll of an active
 * task asks D1 nothing; a task end without a webhook writes nothing to webhook_deliveries; history
 * pages by cursor with its total kept by per-key counters; a delete removes the result object.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { jobs } from "../../platform/schema.ts";
import {
  changeTaskStatus,
  createTask,
  readPermanentTask,
  readTaskWithWebhook,
} from "../../platform/task-store.ts";
import {
  type TranscriptionResult,
  TranscriptionResult as TranscriptionResultSchema,
} from "../../protocol/transcription.ts";
import type { HistoryPage } from "../../worker/schemas/history.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { deleteOwnedTask } from "../../worker/tasks/delete.ts";
import { pollTask } from "../../worker/tasks/poll.ts";
import {
  bearer,
  call,
  countingEnv,
  createKey,
  createTranscription,
  resetDispatcher,
  TRANSCRIBE_PARAMS,
} from "./helpers.ts";

/** The bytes a D1 row holds, column by column (an integer counts its digits). */
async function rowBytes(taskId: string): Promise<number> {
  const columns = (await env.DB.prepare("PRAGMA table_info(jobs)").all<{ name: string }>()).results;
  const sum = columns.map((column) => `coalesce(length("${column.name}"), 0)`).join(" + ");
  const row = await env.DB.prepare(`SELECT ${sum} AS bytes FROM jobs WHERE task_id = ?`)
    .bind(taskId)
    .first<{ bytes: number }>();
  return row?.bytes ?? Number.NaN;
}

/** A 10-minute transcription's result: 200 segments of 3 s, a raw text and a translation (~50 KB). */
function tenMinuteResult(): TranscriptionResult {
  const line = "hôm nay chúng ta sẽ nói về cách lưu trữ dữ liệu ở biên mạng";
  const fmt = (s: number) =>
    `00:${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000`;
  const segments = Array.from({ length: 200 }, (_, i) => ({
    start: i * 3,
    end: i * 3 + 3,
    start_fmt: fmt(i * 3),
    end_fmt: fmt(i * 3 + 3),
    text: `${line} ${i}`,
    speaker: "SPEAKER_00",
  }));
  const text = segments.map((segment) => segment.text).join(" ");
  return TranscriptionResultSchema.parse({
    text,
    raw_text: text,
    language: "vi",
    model: "whisper-base",
    duration_sec: 600,
    asr_ms: 60_000,
    rtf: 0.1,
    segments,
    segment_count: segments.length,
    has_timestamps: true,
    translation: "today we will talk about storing data at the network edge ".repeat(200),
  });
}

const noMedia = async () => null;

describe("results in R2, metadata in D1", () => {
  let key: { id: string; key: string };
  beforeEach(async () => {
    await resetDispatcher();
    key = await createKey();
  });

  it("a finished 10-minute transcription keeps at most 2 KB in D1; its whole result reads back", async () => {
    const task = await createTranscription(key.id);
    const result = tenMinuteResult();
    expect(JSON.stringify(result).length).toBeGreaterThan(40_000);
    await changeTaskStatus(env, task.task_id, { status: "processing" });
    await changeTaskStatus(env, task.task_id, { status: "done", result });
    const bytes = await rowBytes(task.task_id);
    console.log(
      JSON.stringify({
        measure: "d1_row_bytes_10min_done",
        bytes,
        result_bytes: JSON.stringify(result).length,
      }),
    );
    expect(bytes).toBeLessThanOrEqual(2048);
    // Read back from the permanent store, as after the JobState entry expired.
    const stored = await readPermanentTask(env, task.task_id);
    expect(stored?.result).toEqual(result);
  });

  it("an old row with its result inline still reads (poll, history, subtitles)", async () => {
    const taskId = crypto.randomUUID();
    const now = Date.now();
    await db(env)
      .insert(jobs)
      .values({
        task_id: taskId,
        owner_key_id: key.id,
        kind: "transcribe",
        lane: "batch",
        status: "done",
        params: TRANSCRIBE_PARAMS,
        source: { type: "none" },
        result: tenMinuteResult(),
        progress: 100,
        created_at: now,
        updated_at: now,
      });
    const poll = await call(`/transcribe/${taskId}`, { headers: bearer(key.key) });
    expect(poll.status).toBe(200);
    expect(((await poll.json()) as TaskStatusResponse).result?.segment_count).toBe(200);
    const history = (await (await call("/history", { headers: bearer(key.key) })).json()) as HistoryPage;
    expect(history.jobs.map((entry) => entry.result?.duration_sec)).toEqual([600]);
    const srt = await call(`/transcribe/${taskId}/subtitles?format=srt`, { headers: bearer(key.key) });
    expect(srt.status).toBe(200);
    expect(await srt.text()).toContain("hôm nay");
  });

  it("the upgrade fills each key's counters from the rows it finds (migration 0016's backfill)", async () => {
    const old = await createKey("before-counters");
    const now = Date.now();
    const row = (status: "done" | "failed" | "queued", deleted: boolean) => ({
      task_id: crypto.randomUUID(),
      owner_key_id: old.id,
      kind: "transcribe" as const,
      lane: "batch" as const,
      status,
      params: TRANSCRIBE_PARAMS,
      source: { type: "none" as const },
      progress: 0,
      created_at: now,
      updated_at: now,
      deleted_at: deleted ? now : null,
    });
    // Rows as a database from before the counters holds them: written straight, no counter touched.
    await db(env)
      .insert(jobs)
      .values([row("done", false), row("done", false), row("failed", false), row("queued", true)]);
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0016_"));
    const backfill = migration?.queries.find((q) => q.includes("INSERT INTO `task_counts`"));
    expect(backfill).toBeDefined();
    await env.DB.exec("DELETE FROM task_counts");
    await env.DB.prepare(backfill as string).run();
    const counts = await env.DB.prepare(
      "SELECT status, n FROM task_counts WHERE owner_key_id = ? ORDER BY status",
    )
      .bind(old.id)
      .all<{ status: string; n: number }>();
    expect(counts.results).toEqual([
      { status: "done", n: 2 },
      { status: "failed", n: 1 },
    ]);
    const history = (await (await call("/history", { headers: bearer(old.key) })).json()) as HistoryPage;
    expect(history.total).toBe(3);
  });

  it("a poll of an active task prepares no D1 statement, webhook state included", async () => {
    const task = await createTask(env, {
      ownerKeyId: key.id,
      kind: "transcribe",
      lane: "batch",
      params: TRANSCRIBE_PARAMS,
      source: { type: "none" },
      webhook: {
        target: { url: "https://hooks.example.com/in", authHeader: null },
        baseUrl: "https://api.example.com",
      },
    });
    const counted = countingEnv();
    const polled = await pollTask(counted.env, task.task_id, key.id, noMedia);
    expect(polled.status).toBe("queued");
    expect(polled.webhook_status).toBe("pending");
    // The content result route's read: record and webhook state from JobState too.
    expect((await readTaskWithWebhook(counted.env, task.task_id))?.webhook?.webhook_status).toBe("pending");
    expect(counted.statements).toEqual([]);
  });

  it("a task that ends without a webhook writes nothing to webhook_deliveries", async () => {
    const task = await createTranscription(key.id);
    const counted = countingEnv();
    await changeTaskStatus(counted.env, task.task_id, { status: "processing" });
    await changeTaskStatus(counted.env, task.task_id, { status: "done", result: tenMinuteResult() });
    expect(counted.statements.filter((statement) => statement.includes("webhook_deliveries"))).toEqual([]);
  });

  it("history pages by cursor, its total kept by the key's counters through a delete", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createTranscription(key.id)).task_id);
    const first = (await (
      await call("/history?limit=2", { headers: bearer(key.key) })
    ).json()) as HistoryPage;
    expect(first.total).toBe(3);
    expect(first.jobs).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await (
      await call(`/history?limit=2&cursor=${first.next_cursor}`, { headers: bearer(key.key) })
    ).json()) as HistoryPage;
    expect([...first.jobs, ...second.jobs].map((entry) => entry.task_id).sort()).toEqual([...ids].sort());
    expect(second.next_cursor).toBeNull();
    const bad = await call("/history?cursor=bm90LWEtY3Vyc29y", { headers: bearer(key.key) });
    expect(bad.status).toBe(422);
    await changeTaskStatus(env, ids[0] as string, { status: "processing" });
    const processing = (await (
      await call("/history?status=processing", { headers: bearer(key.key) })
    ).json()) as HistoryPage;
    expect(processing.total).toBe(1);
    expect(await deleteOwnedTask(env, ids[1] as string, key.id, ["transcribe"])).toBe(true);
    const after = (await (await call("/history", { headers: bearer(key.key) })).json()) as HistoryPage;
    expect(after.total).toBe(2);
  });

  it("a delete removes the task's result object from R2", async () => {
    const task = await createTranscription(key.id);
    await changeTaskStatus(env, task.task_id, { status: "processing" });
    await changeTaskStatus(env, task.task_id, { status: "done", result: tenMinuteResult() });
    expect((await env.MEDIA.list({ prefix: `results/${task.task_id}/` })).objects).toHaveLength(1);
    expect(await deleteOwnedTask(env, task.task_id, key.id, ["transcribe"])).toBe(true);
    expect((await env.MEDIA.list({ prefix: `results/${task.task_id}/` })).objects).toEqual([]);
  });
});
