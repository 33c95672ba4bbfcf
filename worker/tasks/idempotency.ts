import { and, eq, lt } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { idempotencyKeys } from "../../platform/schema.ts";
import { ApiError, validationError } from "../errors.ts";

/**
 * Idempotency-Key on the routes that create tasks: a client that retries after a timeout or a dropped
 * connection sends the same key and gets the task its first request created, instead of a duplicate.
 * The key is scoped to the API key, remembered 24 hours, and bound to what the request asked for: the
 * same key with a different request is a 422.
 */

/** The header clients send (the IETF draft's name). */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Set on an answer that returns an earlier request's task. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A first request that has not created its task after this long crashed; a retry may take over. */
const CLAIM_STALE_MS = 60_000;

export interface IdempotentRequest {
  ownerKeyId: string;
  /** The header's value; null when the client sent none. */
  key: string | null;
  /** What the request asks for (route and its validated input), as text; hashed here. */
  request: string;
}

export interface IdempotentOutcome {
  taskId: string;
  /** True when an earlier request with the same key created the task. */
  replayed: boolean;
}

function issue(msg: string, type: string) {
  return validationError([{ loc: ["header", IDEMPOTENCY_HEADER], msg, type }]);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Runs `create` once per (API key, Idempotency-Key): the first call creates and records the task, a
 * later call with the same request returns it (`replayed`), one with another request is a 422, and
 * one that races the first while it still runs is a 409 with Retry-After.
 *
 * @example const { taskId, replayed } = await idempotent(env, { ownerKeyId, key, request: "url:" + body }, create);
 */
export async function idempotent(
  env: Env,
  input: IdempotentRequest,
  create: () => Promise<string>,
): Promise<IdempotentOutcome> {
  if (input.key === null) return { taskId: await create(), replayed: false };
  if (!KEY_SHAPE.test(input.key)) {
    throw issue("must be 1 to 255 visible ASCII characters", "idempotency_key_invalid");
  }
  const where = and(eq(idempotencyKeys.owner_key_id, input.ownerKeyId), eq(idempotencyKeys.key, input.key));
  const fingerprint = await sha256(input.request);
  const now = Date.now();
  const store = db(env);
  // A remembered key past its 24 hours is forgotten; a stale claim (its request crashed) is released.
  await store
    .delete(idempotencyKeys)
    .where(and(where, lt(idempotencyKeys.created_at, now - IDEMPOTENCY_TTL_MS)));
  const claimed = await store
    .insert(idempotencyKeys)
    .values({ owner_key_id: input.ownerKeyId, key: input.key, fingerprint, task_id: null, created_at: now })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (claimed.length === 0) {
    const existing = await store.select().from(idempotencyKeys).where(where).get();
    if (!existing)
      throw new ApiError("conflict", "the Idempotency-Key changed hands; retry", { "Retry-After": "1" });
    if (existing.fingerprint !== fingerprint) {
      throw issue("was already used with a different request", "idempotency_key_reused");
    }
    if (existing.task_id) return { taskId: existing.task_id, replayed: true };
    if (existing.created_at > now - CLAIM_STALE_MS) {
      throw new ApiError("conflict", "a request with this Idempotency-Key is still in progress; retry", {
        "Retry-After": "1",
      });
    }
    await store
      .update(idempotencyKeys)
      .set({ created_at: now })
      .where(and(where, eq(idempotencyKeys.created_at, existing.created_at)));
  }
  let taskId: string;
  try {
    taskId = await create();
  } catch (cause) {
    // Refused or failed: nothing was created, so a retry with the same key may try again.
    await store.delete(idempotencyKeys).where(where);
    throw cause;
  }
  await store.update(idempotencyKeys).set({ task_id: taskId }).where(where);
  return { taskId, replayed: false };
}

/** Forgets keys older than 24 hours (the cron sweep). */
export async function pruneIdempotencyKeys(env: Env, now = Date.now()): Promise<void> {
  await db(env)
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.created_at, now - IDEMPOTENCY_TTL_MS));
}
