import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";

/**
 * Who a request acts for. Rows (tasks, notes, history) are owned by a principal's `ownerId`: an API
 * key's id, or `user:<subject>` for a user, whether the user sent their own JWT or a service key acted
 * for them (X-Voxedge-User), so both reach the same rows. Key ids (`key_…`, `svc_…`) never start with
 * `user:`, so a user can never own a key's rows or the other way round.
 */
export interface Principal {
  ownerId: string;
  /** What the content API shows as `user_id`: the key's id, or the user's own id. */
  userId: string;
  via: "api_key" | "service_key" | "user_jwt";
  /** The key the request came with; null for a user JWT. */
  keyId: string | null;
}

/** The header a service key names the user it acts for with. */
export const ACTING_USER_HEADER = "x-voxedge-user";

const USER_OWNER_PREFIX = "user:";

/** A user's owner id. */
export function userOwnerId(userId: string): string {
  return `${USER_OWNER_PREFIX}${userId}`;
}

/** Whether rows of this owner belong to a user (they have no key of their own: no webhook secret). */
export function isUserOwner(ownerId: string): boolean {
  return ownerId.startsWith(USER_OWNER_PREFIX);
}

/** A user id as the header or a token's `sub` may carry it: 1 to 128 printable characters. */
export function validUserId(value: string): boolean {
  return value.length >= 1 && value.length <= 128 && /^[\x21-\x7e]+$/.test(value);
}

/** The principal of a plain API or service key acting as itself. */
export function keyPrincipal(key: { id: string; kind?: string }): Principal {
  return {
    ownerId: key.id,
    userId: key.id,
    via: key.kind === "service" ? "service_key" : "api_key",
    keyId: key.id,
  };
}

/** User owners this isolate has already made sure of. */
const knownUsers = new Set<string>();
const MAX_KNOWN_USERS = 10_000;

/**
 * Makes sure a user has its owner row (D1 `api_keys`, kind `user`) before anything of theirs is
 * stored: tasks, notes and uploads reference their owner's row. Idempotent; once per user per isolate.
 */
export async function ensureUserOwner(env: Env, userId: string): Promise<void> {
  const ownerId = userOwnerId(userId);
  if (knownUsers.has(ownerId)) return;
  await db(env)
    .insert(apiKeys)
    .values({
      id: ownerId,
      name: userId,
      keyHash: ownerId,
      prefix: "user",
      createdAt: Date.now(),
      kind: "user",
    })
    .onConflictDoNothing();
  if (knownUsers.size >= MAX_KNOWN_USERS) knownUsers.clear();
  knownUsers.add(ownerId);
}
