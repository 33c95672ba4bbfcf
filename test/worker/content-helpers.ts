import { expect } from "vitest";
import type { Lease } from "../../protocol/node.ts";
import { CONTENT_KINDS, type TaskKind } from "../../protocol/task.ts";
import type { Note } from "../../worker/schemas/notes.ts";
import { bearer, call } from "./helpers.ts";
import type { TestNode } from "./node-client.ts";

/** What the content API's tests share: a note, a create form, its acknowledgement, a lease, an error. */

export async function createNote(key: string, content: string): Promise<Note> {
  const response = await call("/v1/notes", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ content }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Note;
}

/** POST /v2/create/<path> with `fields` form-encoded. */
export function createForm(
  path: string,
  key: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return call(`/v2/create/${path}`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The task id of a create request's acknowledgement (200, PROCESSING). */
export async function created(response: Response): Promise<string> {
  const body = (await response.json()) as { status: string; data: { task_id: string } };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.status).toBe("PROCESSING");
  return body.data.task_id;
}

/**
 * Leases `taskId` for this node. Tasks of earlier tests may still reach the Dispatcher through the
 * Queue; those are failed out of the way.
 */
export async function leaseTask(
  node: TestNode,
  taskId: string,
  kinds: readonly TaskKind[] = CONTENT_KINDS,
): Promise<Lease> {
  for (let i = 0; i < 20; i++) {
    const [lease] = await node.lease(1, 5_000, [...kinds]);
    if (!lease) break;
    if (lease.task_id === taskId) return lease;
    await node.fail(lease.lease_id, "invalid_params", "a stray task of an earlier test");
  }
  throw new Error(`task ${taskId} was never leased`);
}

/** The `error_key` of a content error answered with `status` (its `error` and `message` present). */
export async function errorKey(response: Response, status: number): Promise<string> {
  const body = (await response.json()) as { error_key: string; error: string; message: string };
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBeTruthy();
  expect(body.message).toBeTruthy();
  return body.error_key;
}
