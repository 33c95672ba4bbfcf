/**
 * The root's record of a speech pool's numeric cap: how many slots each partition holds and until when.
 * A partition may grant a speech lease only while it holds a slot, so the slots held never pass the cap
 * and neither do the leases out. A holding expires unless renewed (a partition that stopped calling
 * cannot keep the cap); expired holdings are reclaimed before any grant and by the root's alarm.
 * SQLite is the durable record (a restarted root must not hand out held slots again); the sum is kept in
 * memory, so a grant is O(1) (the reclaim walks at most DISPATCHER_PARTITIONS rows).
 */

/** What a partition holds after a call: the root's count is the authority (a restarted partition learns it here). */
export interface Holding {
  slots: number;
  expiresAt: number;
}

export function createBudgetTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS budgets (
    partition INTEGER PRIMARY KEY,
    slots INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  )`);
}

export class BudgetLedger {
  private readonly holdings = new Map<number, Holding>();
  private held = 0;

  constructor(private readonly sql: SqlStorage) {
    for (const row of sql.exec<{ partition: number; slots: number; expires_at: number }>(
      "SELECT * FROM budgets",
    )) {
      this.holdings.set(row.partition, { slots: row.slots, expiresAt: row.expires_at });
      this.held += row.slots;
    }
  }

  /** Slots held by all partitions together (expired holdings included until reclaimed). */
  total(): number {
    return this.held;
  }

  /**
   * Gives `partition` up to `want` more slots, as many as the cap leaves free, and renews its holding
   * for `ttlMs`. `want` 0 only renews.
   */
  acquire(partition: number, want: number, cap: number, now: number, ttlMs: number): Holding {
    this.reclaim(now);
    const slots = this.holdings.get(partition)?.slots ?? 0;
    const granted = Math.max(0, Math.min(want, cap - this.held));
    return this.write(partition, slots + granted, now + ttlMs);
  }

  /** Takes `slots` back from `partition` (at most what it holds) and renews the rest for `ttlMs`. */
  release(partition: number, slots: number, now: number, ttlMs: number): Holding {
    this.reclaim(now);
    const held = this.holdings.get(partition)?.slots ?? 0;
    return this.write(partition, held - Math.min(slots, held), now + ttlMs);
  }

  /** Drops the holdings that expired by `now`. */
  reclaim(now: number): void {
    for (const [partition, holding] of this.holdings) {
      if (holding.expiresAt <= now) this.write(partition, 0, 0);
    }
  }

  /** When the earliest holding expires; null when none is held. */
  nextExpiry(): number | null {
    let next: number | null = null;
    for (const { expiresAt } of this.holdings.values())
      if (next === null || expiresAt < next) next = expiresAt;
    return next;
  }

  private write(partition: number, slots: number, expiresAt: number): Holding {
    this.held += slots - (this.holdings.get(partition)?.slots ?? 0);
    if (slots === 0) {
      this.holdings.delete(partition);
      this.sql.exec("DELETE FROM budgets WHERE partition = ?", partition);
      return { slots: 0, expiresAt };
    }
    const holding = { slots, expiresAt };
    this.holdings.set(partition, holding);
    this.sql.exec(
      `INSERT INTO budgets (partition, slots, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (partition) DO UPDATE SET slots = excluded.slots, expires_at = excluded.expires_at`,
      partition,
      slots,
      expiresAt,
    );
    return holding;
  }
}
