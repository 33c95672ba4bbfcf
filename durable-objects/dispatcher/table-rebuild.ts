/**
 * An in-object storage migration: a table made by an older Dispatcher is rebuilt in today's shape
 * (SQLite cannot add or drop a table's key or its UNIQUE constraints in place), keeping its rows. The
 * caller runs it inside the constructor's transaction (`transactionSync`), so an object upgrades on its
 * first start, all or nothing.
 */

/** The CREATE statement a table was made with, or null when it does not exist. */
export function tableDefinition(sql: SqlStorage, table: string): string | null {
  return (
    sql
      .exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table)
      .toArray()[0]?.sql ?? null
  );
}

/**
 * Makes `table` anew with `create` (a CREATE TABLE statement for the name it is given), copies
 * `columns` of every row over, drops the old table and gives the new one its name. An AUTOINCREMENT
 * counter carries over too, so a key handed out before is never handed out again.
 */
export function rebuildTable(
  sql: SqlStorage,
  table: string,
  create: (name: string) => string,
  columns: readonly string[],
): void {
  const rebuilt = `${table}_rebuilt`;
  const list = columns.join(", ");
  const counter =
    tableDefinition(sql, "sqlite_sequence") === null
      ? undefined
      : sql.exec<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = ?", table).toArray()[0]?.seq;
  sql.exec(create(rebuilt));
  sql.exec(`INSERT INTO ${rebuilt} (${list}) SELECT ${list} FROM ${table}`);
  sql.exec(`DROP TABLE ${table}`);
  sql.exec(`ALTER TABLE ${rebuilt} RENAME TO ${table}`);
  if (counter === undefined) return;
  sql.exec("DELETE FROM sqlite_sequence WHERE name = ?", table);
  sql.exec("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table, counter);
}
