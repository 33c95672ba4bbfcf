import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

const handles = new WeakMap<D1Database, ReturnType<typeof drizzle<typeof schema>>>();

/** A drizzle handle over the D1 binding, built once per binding (it digests the schema). */
export function db(env: Env) {
  let handle = handles.get(env.DB);
  if (!handle) {
    handle = drizzle(env.DB, { schema });
    handles.set(env.DB, handle);
  }
  return handle;
}

/**
 * A drizzle handle over a D1 session that may read a replica (D1 read replication): for reads where
 * a few seconds of staleness are harmless (the history list). The session's first query goes to any
 * replica ("first-unconstrained"); its later ones see at least what the first saw. See
 * docs/deployment.md.
 */
export function replicaReader(env: Env) {
  // drizzle asks only for prepare() and batch(), which a session has.
  return drizzle(env.DB.withSession("first-unconstrained") as unknown as D1Database);
}
