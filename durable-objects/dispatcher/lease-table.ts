import { type NodeIdentity, SHARED_NODE } from "../../platform/node-identity.ts";
import type { Lane, TaskKind } from "../../protocol/task.ts";

/** Tasks handed to nodes. A lease lives until it is released or its deadline passes. */
export type LeaseRow = {
  lease_id: string;
  task_id: string;
  seq: number;
  owner: string;
  lane: Lane;
  kind: TaskKind;
  attempts: number;
  node_id: string;
  /** The authenticated node identity that took the lease (`shared` for the shared NODE_TOKEN). */
  node_name: string;
  /** That identity's id: only it may use the lease ('' on a lease stored before ids were recorded). */
  identity_id: string;
  expires_at: number;
  /** 1 once the task was cancelled (its caller went away); the node learns it on its next heartbeat. */
  cancelled: 0 | 1;
};

/** Lease columns plus whether the lease was cancelled. */
const LEASE_COLUMNS = `l.*, EXISTS (SELECT 1 FROM cancelled_leases c WHERE c.lease_id = l.lease_id) AS cancelled`;

export function createLeaseTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS leases (
    lease_id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL UNIQUE,
    seq INTEGER NOT NULL,
    owner TEXT NOT NULL,
    lane TEXT NOT NULL,
    kind TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    node_name TEXT NOT NULL DEFAULT '',
    identity_id TEXT NOT NULL DEFAULT '',
    expires_at INTEGER NOT NULL
  )`);
  // Leases stored before node identities had no node_name, and before lease ownership no identity_id:
  // add them ('' = not recorded; isHeldBy says who holds such a lease).
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(leases)").toArray();
  for (const column of ["node_name", "identity_id"]) {
    if (!columns.some((existing) => existing.name === column)) {
      sql.exec(`ALTER TABLE leases ADD COLUMN ${column} TEXT NOT NULL DEFAULT ''`);
    }
  }
  // Leases whose task was cancelled while a node held it; a row goes with its lease.
  sql.exec("CREATE TABLE IF NOT EXISTS cancelled_leases (lease_id TEXT PRIMARY KEY)");
  // Tasks that reached an end, so a late duplicate hand-off is ignored; pruned after a day.
  sql.exec("CREATE TABLE IF NOT EXISTS finished (task_id TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  sql.exec(
    "CREATE TABLE IF NOT EXISTS nodes (node_id TEXT PRIMARY KEY, health TEXT NOT NULL, seen_at INTEGER NOT NULL)",
  );
}

/**
 * Whether a node identity may use a lease: only the one that took it (all nodes on the shared
 * NODE_TOKEN are one identity). A lease stored before identity ids were recorded goes by its recorded
 * name, and one from before node identities (no name) was taken on the shared token.
 */
export function isHeldBy(lease: LeaseRow, node: NodeIdentity): boolean {
  if (lease.identity_id !== "") return lease.identity_id === node.id;
  const takenShared = lease.node_name === "" || lease.node_name === SHARED_NODE.name;
  if (takenShared || node.id === SHARED_NODE.id) return takenShared && node.id === SHARED_NODE.id;
  return lease.node_name === node.name;
}

export class LeaseTable {
  constructor(private readonly sql: SqlStorage) {}

  insert(row: LeaseRow): void {
    this.sql.exec(
      `INSERT INTO leases
         (lease_id, task_id, seq, owner, lane, kind, attempts, node_id, node_name, identity_id, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.lease_id,
      row.task_id,
      row.seq,
      row.owner,
      row.lane,
      row.kind,
      row.attempts,
      row.node_id,
      row.node_name,
      row.identity_id,
      row.expires_at,
    );
  }

  get(leaseId: string): LeaseRow | null {
    return (
      this.sql
        .exec<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM leases l WHERE l.lease_id = ?`, leaseId)
        .toArray()[0] ?? null
    );
  }

  /** The lease that holds a task, if one does. */
  byTask(taskId: string): LeaseRow | null {
    return (
      this.sql
        .exec<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM leases l WHERE l.task_id = ?`, taskId)
        .toArray()[0] ?? null
    );
  }

  /** Marks a lease cancelled; it lives on until its node hears of it (or it expires). */
  cancel(leaseId: string): void {
    this.sql.exec("INSERT OR IGNORE INTO cancelled_leases (lease_id) VALUES (?)", leaseId);
  }

  holdsTask(taskId: string): boolean {
    return this.sql.exec("SELECT 1 FROM leases WHERE task_id = ?", taskId).toArray().length > 0;
  }

  extend(leaseId: string, expiresAt: number): void {
    this.sql.exec("UPDATE leases SET expires_at = ? WHERE lease_id = ?", expiresAt, leaseId);
  }

  delete(leaseId: string): void {
    this.sql.exec("DELETE FROM leases WHERE lease_id = ?", leaseId);
    this.sql.exec("DELETE FROM cancelled_leases WHERE lease_id = ?", leaseId);
  }

  /** Leases out, on tasks of the given kinds. */
  count(kinds: readonly TaskKind[]): number {
    const marks = kinds.map(() => "?").join(",") || "NULL";
    return this.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM leases WHERE kind IN (${marks})`, ...kinds)
      .one().n;
  }

  /** Leases out on tasks of the given kinds, per owning key. */
  runningByOwner(kinds: readonly TaskKind[]): Map<string, number> {
    const marks = kinds.map(() => "?").join(",") || "NULL";
    const rows = this.sql
      .exec<{ owner: string; n: number }>(
        `SELECT owner, COUNT(*) AS n FROM leases WHERE kind IN (${marks}) GROUP BY owner`,
        ...kinds,
      )
      .toArray();
    return new Map(rows.map((row) => [row.owner, row.n]));
  }

  expired(now: number): LeaseRow[] {
    return this.sql
      .exec<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM leases l WHERE l.expires_at <= ?`, now)
      .toArray();
  }

  nextExpiry(): number | null {
    return this.sql.exec<{ t: number | null }>("SELECT MIN(expires_at) AS t FROM leases").one().t;
  }

  markFinished(taskId: string, now: number): void {
    this.sql.exec("INSERT OR REPLACE INTO finished (task_id, at) VALUES (?, ?)", taskId, now);
  }

  isFinished(taskId: string): boolean {
    return this.sql.exec("SELECT 1 FROM finished WHERE task_id = ?", taskId).toArray().length > 0;
  }

  pruneFinished(before: number): void {
    this.sql.exec("DELETE FROM finished WHERE at < ?", before);
  }
}
