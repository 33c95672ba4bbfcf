/**
 * Counts what a Durable Object asks of its SQL storage: statements, rows read and rows written (the
 * cursors' own figures). Machine-independent cost per operation, beside the time.
 */

export interface StorageCounts {
  statements: number;
  rowsRead: number;
  rowsWritten: number;
}

export function zeroCounts(): StorageCounts {
  return { statements: 0, rowsRead: 0, rowsWritten: 0 };
}

/**
 * Counts `ctx.storage.sql.exec` into `counts`. The runtime refuses a proxy in place of the state, so the
 * storage's own SQL handle gets a counting `exec` (every `ctx.storage.sql` read returns that one object;
 * checked here). A cursor's rows grow as it is consumed, so each is kept and summed into `counts` by the
 * returned `settle`, called after an operation.
 */
export function countStatements(ctx: DurableObjectState, counts: StorageCounts): () => void {
  const sql = ctx.storage.sql;
  if (ctx.storage.sql !== sql)
    throw new Error("ctx.storage.sql is not one object: cannot count its statements");
  const exec = sql.exec.bind(sql);
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  Object.defineProperty(sql, "exec", {
    value: (query: string, ...bindings: unknown[]) => {
      const cursor = exec(query, ...bindings);
      counts.statements++;
      cursors.push(cursor);
      return cursor;
    },
  });
  return () => {
    for (const cursor of cursors.splice(0)) {
      counts.rowsRead += cursor.rowsRead;
      counts.rowsWritten += cursor.rowsWritten;
    }
  };
}
