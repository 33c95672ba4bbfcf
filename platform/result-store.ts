import type { TaskResult } from "../protocol/task.ts";

/**
 * Task results live in R2 (MEDIA), one object per stored result, so D1 keeps metadata only (its
 * database and row caps would otherwise bound how many transcripts the platform holds). Each write
 * gets its own key under the task's prefix: a late writer whose D1 update then loses (the task had
 * already ended) leaves an orphan under that prefix, never a changed result; the delete removes the
 * prefix. GET /media never serves these keys (worker/ingest/object-keys.ts).
 */

const RESULT_PREFIX = "results/";
/** Characters of a transcript's text kept in the D1 row (`text_preview`): enough to recognise it. */
export const TEXT_PREVIEW_CHARS = 200;

/** Every result object of a task (the delete lists this prefix). */
export function resultPrefix(taskId: string): string {
  return `${RESULT_PREFIX}${taskId}/`;
}

/** What the D1 row keeps of a stored result. */
export interface StoredResult {
  result_key: string;
  result_bytes: number;
  text_preview: string | null;
}

/** Writes a result to R2 (before the D1 row points at it, so no pointer ever names nothing). */
export async function storeResult(env: Env, taskId: string, result: TaskResult): Promise<StoredResult> {
  const key = `${resultPrefix(taskId)}${crypto.randomUUID()}.json`;
  const body = JSON.stringify(result);
  const object = await env.MEDIA.put(key, body, { httpMetadata: { contentType: "application/json" } });
  const text = "text" in result && typeof result.text === "string" ? result.text : null;
  return {
    result_key: key,
    result_bytes: object.size,
    text_preview: text === null ? null : text.slice(0, TEXT_PREVIEW_CHARS),
  };
}

/** The stored result, or null when its object is gone (a delete in progress). */
export async function loadResult(env: Env, key: string): Promise<unknown> {
  const object = await env.MEDIA.get(key);
  return object ? await object.json() : null;
}

/** Removes every result object of a task; repeatable. */
export async function deleteResults(env: Env, taskId: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await env.MEDIA.list({ prefix: resultPrefix(taskId), cursor });
    if (page.objects.length > 0) await env.MEDIA.delete(page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
