/**
 * Counts what a Durable Object asks of its key-value storage API (get, put, delete, list), which on a
 * SQLite-backed object runs SQL the object's `sql.exec` never sees: one call counts as one statement,
 * the entries it returns as rows read and the keys it writes or deletes as rows written.
 */
import type { StorageCounts } from "./counting-storage.ts";

const size = (value: unknown) => (value instanceof Map ? value.size : value === undefined ? 0 : 1);
const keys = (first: unknown) =>
  Array.isArray(first) ? first.length : typeof first === "object" ? Object.keys(first as object).length : 1;

/** Wraps `ctx.storage`'s key-value calls so that each adds to `counts`. */
export function countKeyValue(ctx: DurableObjectState, counts: StorageCounts): void {
  const storage = ctx.storage as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ["get", "list", "put", "delete"] as const) {
    const call = storage[name]!.bind(ctx.storage);
    Object.defineProperty(ctx.storage, name, {
      value: async (...args: unknown[]) => {
        counts.statements++;
        const result = await call(...args);
        if (name === "get" || name === "list") counts.rowsRead += size(result);
        else counts.rowsWritten += keys(args[0]);
        return result;
      },
    });
  }
}
