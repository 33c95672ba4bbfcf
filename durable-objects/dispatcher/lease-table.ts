import { OrderedSet } from "js-sdsl";
import { type NodeIdentity, SHARED_NODE } from "../../platform/node-identity.ts";
import { type Lane, type TaskKind, type WorkClass, workClassOf } from "../../protocol/task.ts";
import { rebuildTable, tableDefinition } from "./table-rebuild.ts";

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
  /** The serve counter's value when the grant made this lease (fair-rotation.ts: its key's last serve then). */
  served: number;
  /** 1 once the task was cancelled (its caller went away); the node learns it on its next heartbeat. */
  cancelled: 0 | 1;
};

/** Lease columns plus whether the lease was cancelled. */
const LEASE_COLUMNS = `l.*, EXISTS (SELECT 1 FROM cancelled_leases c WHERE c.lease_id = l.lease_id) AS cancelled`;

/** The lease row's columns, in the table's order. */
const LEASE_TABLE_COLUMNS = [
  "seq",
  "lease_id",
  "task_id",
  "owner",
  "lane",
  "kind",
  "attempts",
  "node_id",
  "node_name",
  "identity_id",
  "expires_at",
  "served",
] as const;

export function createLeaseTables(sql: SqlStorage): void {
  // One b-tree keyed by the task's seq (the rowid), so a grant's insert and a release's delete write one,
  // and a grant's row lands at or near its end (the line serves older seqs first, by and large) rather
  // than into a random leaf as a random lease-id key did. A seq is under one lease at most (the line's
  // AUTOINCREMENT hands each out once, and a task keeps its own), and memory holds every lease by id and
  // by task (LeaseTable): no other index.
  const create = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
    seq INTEGER PRIMARY KEY,
    lease_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    lane TEXT NOT NULL,
    kind TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    node_name TEXT NOT NULL DEFAULT '',
    identity_id TEXT NOT NULL DEFAULT '',
    expires_at INTEGER NOT NULL,
    served INTEGER NOT NULL DEFAULT 0
  )`;
  sql.exec(create("leases"));
  // Leases stored before node identities had no node_name, and before lease ownership no identity_id:
  // add them ('' = not recorded; isHeldBy says who holds such a lease); before serves were kept with
  // the lease, no served (0: the owners table holds that serve).
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(leases)").toArray();
  for (const [column, type] of [
    ["node_name", "TEXT NOT NULL DEFAULT ''"],
    ["identity_id", "TEXT NOT NULL DEFAULT ''"],
    ["served", "INTEGER NOT NULL DEFAULT 0"],
  ]) {
    if (!columns.some((existing) => existing.name === column)) {
      sql.exec(`ALTER TABLE leases ADD COLUMN ${column} ${type}`);
    }
  }
  // Leases were a rowid table keyed by lease id with a UNIQUE task_id (three b-trees) before 2026-11-27,
  // then a WITHOUT ROWID table keyed by lease id: both are rebuilt keyed by seq, rows kept.
  if (!tableDefinition(sql, "leases")?.includes("seq INTEGER PRIMARY KEY"))
    rebuildTable(sql, "leases", create, LEASE_TABLE_COLUMNS);
  // Leases whose task was cancelled while a node held it; a row goes with its lease.
  sql.exec("CREATE TABLE IF NOT EXISTS cancelled_leases (lease_id TEXT PRIMARY KEY)");
  // Tasks that reached an end, so a late duplicate hand-off is ignored; pruned after a day.
  sql.exec("CREATE TABLE IF NOT EXISTS finished (task_id TEXT PRIMARY KEY, at INTEGER NOT NULL)");
  // Every lookup by an index: the prunes by age here; the expired leases and the next expiry by the
  // deadline index in memory (LeaseTable), as an index on expires_at here cost every grant, heartbeat
  // and release one more page to write.
  sql.exec("DROP INDEX IF EXISTS leases_expires_at");
  sql.exec("CREATE INDEX IF NOT EXISTS finished_at ON finished (at)");
  sql.exec(
    "CREATE TABLE IF NOT EXISTS nodes (node_id TEXT PRIMARY KEY, health TEXT NOT NULL, seen_at INTEGER NOT NULL)",
  );
  sql.exec("CREATE INDEX IF NOT EXISTS nodes_seen_at ON nodes (seen_at)");
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

/**
 * The leases out: SQLite is the durable record, and memory holds every lease row, the counts per
 * work class and key, and the leases ordered by deadline (rebuilt from the table when the object
 * starts), so a lookup, a heartbeat's check, a grant, a poll or the alarm's look for expired leases
 * never reads the table. A few hundred bytes a running lease.
 */
export class LeaseTable {
  /** [expires_at, lease_id] of every lease, earliest first (js-sdsl's red-black tree): O(log n) a change. */
  private readonly deadlines = new OrderedSet<Deadline>([], compareDeadlines);
  private readonly running = new Map<WorkClass, Map<string, number>>();
  private readonly total = new Map<WorkClass, number>();
  /** Leases out per work class and node, so a node's ask says its whole capacity (`FleetSlots`). */
  private readonly held = new Map<WorkClass, Map<string, number>>();
  private readonly rows = new Map<string, LeaseRow>();
  /** Lease id by task id, so a duplicate hand-off or a cancel finds its lease without a read. */
  private readonly leaseOfTask = new Map<string, string>();

  constructor(private readonly sql: SqlStorage) {
    for (const row of sql.exec<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM leases l`)) this.remember({ ...row });
  }

  insert(row: LeaseRow): void {
    this.sql.exec(
      `INSERT INTO leases
         (lease_id, task_id, seq, owner, lane, kind, attempts, node_id, node_name, identity_id, expires_at, served)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      row.served,
    );
    this.remember({ ...row });
  }

  private remember(row: LeaseRow): void {
    this.rows.set(row.lease_id, row);
    this.deadlines.insert([row.expires_at, row.lease_id]);
    this.leaseOfTask.set(row.task_id, row.lease_id);
    this.addRunning(row, 1);
  }

  /** A copy of the lease (callers may keep it while the table changes). */
  get(leaseId: string): LeaseRow | null {
    const row = this.rows.get(leaseId);
    return row ? { ...row } : null;
  }

  /** The lease that holds a task, if one does. */
  byTask(taskId: string): LeaseRow | null {
    const leaseId = this.leaseOfTask.get(taskId);
    return leaseId ? this.get(leaseId) : null;
  }

  /** Marks a lease cancelled; it lives on until its node hears of it (or it expires). */
  cancel(leaseId: string): void {
    const row = this.rows.get(leaseId);
    if (!row || row.cancelled) return;
    this.sql.exec("INSERT OR IGNORE INTO cancelled_leases (lease_id) VALUES (?)", leaseId);
    row.cancelled = 1;
  }

  holdsTask(taskId: string): boolean {
    return this.leaseOfTask.has(taskId);
  }

  extend(leaseId: string, expiresAt: number): void {
    const row = this.rows.get(leaseId);
    if (!row) return;
    this.sql.exec("UPDATE leases SET expires_at = ? WHERE seq = ?", expiresAt, row.seq);
    this.deadlines.eraseElementByKey([row.expires_at, leaseId]);
    row.expires_at = expiresAt;
    this.deadlines.insert([expiresAt, leaseId]);
  }

  delete(lease: Pick<LeaseRow, "lease_id">): void {
    const row = this.rows.get(lease.lease_id);
    if (!row) return;
    this.sql.exec("DELETE FROM leases WHERE seq = ?", row.seq);
    if (row.cancelled) this.sql.exec("DELETE FROM cancelled_leases WHERE lease_id = ?", row.lease_id);
    this.rows.delete(row.lease_id);
    this.deadlines.eraseElementByKey([row.expires_at, row.lease_id]);
    this.leaseOfTask.delete(row.task_id);
    this.addRunning(row, -1);
  }

  /** Leases out in a work class. */
  count(workClass: WorkClass): number {
    return this.total.get(workClass) ?? 0;
  }

  /** Leases out in a work class held for one key. */
  runningOf(owner: string, workClass: WorkClass): number {
    return this.running.get(workClass)?.get(owner) ?? 0;
  }

  /** Leases out in a work class held by one node. */
  heldBy(nodeId: string, workClass: WorkClass): number {
    return this.held.get(workClass)?.get(nodeId) ?? 0;
  }

  private addRunning(lease: Pick<LeaseRow, "owner" | "kind" | "node_id">, delta: number): void {
    const workClass = workClassOf(lease.kind);
    addTo(this.running, workClass, lease.owner, delta);
    addTo(this.held, workClass, lease.node_id, delta);
    this.total.set(workClass, (this.total.get(workClass) ?? 0) + delta);
  }

  /** Copies of the leases whose deadline is at or before `now`, earliest first. */
  expired(now: number): LeaseRow[] {
    const expired: LeaseRow[] = [];
    for (const [expiresAt, leaseId] of this.deadlines) {
      if (expiresAt > now) break;
      const row = this.get(leaseId);
      if (row) expired.push(row);
    }
    return expired;
  }

  /** The earliest deadline, or null when no lease is out. */
  nextExpiry(): number | null {
    return this.deadlines.front()?.[0] ?? null;
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
/** A lease's deadline as a tree key: by time, then by lease id. */
type Deadline = readonly [number, string];

function compareDeadlines(a: Deadline, b: Deadline): number {
  return a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
}

/** Adds `delta` to a per-class count, dropping counts that reach zero. */
function addTo(
  counts: Map<WorkClass, Map<string, number>>,
  workClass: WorkClass,
  id: string,
  delta: number,
): void {
  const perId = counts.get(workClass) ?? new Map<string, number>();
  counts.set(workClass, perId);
  const n = (perId.get(id) ?? 0) + delta;
  if (n > 0) perId.set(id, n);
  else perId.delete(id);
}
