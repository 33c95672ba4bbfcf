import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

/** A drizzle handle over the D1 binding. */
export function db(env: Env) {
  return drizzle(env.DB, { schema });
}
