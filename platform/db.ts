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
