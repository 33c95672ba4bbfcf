import type { NodeHealth } from "../../protocol/node.ts";

/**
 * A node's record is written again only after this long unless its health changed: every lease call
 * and heartbeat reports it, and "live" is measured in NODE_STALE_SEC (a minute by default).
 */
const REWRITE_AFTER_MS = 10_000;

/** The last word of each inference node, from its lease and heartbeat calls. */
export class NodeTable {
  /** What was last written per node, so an unchanged report within REWRITE_AFTER_MS writes nothing. */
  private readonly written = new Map<string, { health: string; at: number }>();

  /** What the table holds is what was last written: a restart does not make every node's next call write. */
  constructor(private readonly sql: SqlStorage) {
    for (const row of sql.exec<{ node_id: string; health: string; seen_at: number }>(
      "SELECT node_id, health, seen_at FROM nodes",
    ))
      this.written.set(row.node_id, { health: row.health, at: row.seen_at });
  }

  record(health: NodeHealth, now: number): void {
    const json = JSON.stringify(health);
    const last = this.written.get(health.node_id);
    if (last && last.health === json && now - last.at < REWRITE_AFTER_MS) return;
    this.sql.exec(
      "INSERT OR REPLACE INTO nodes (node_id, health, seen_at) VALUES (?, ?, ?)",
      health.node_id,
      json,
      now,
    );
    this.written.set(health.node_id, { health: json, at: now });
  }

  /** Nodes heard from since `since`, freshest first. */
  live(since: number): NodeHealth[] {
    return this.sql
      .exec<{ health: string }>("SELECT health FROM nodes WHERE seen_at >= ? ORDER BY seen_at DESC", since)
      .toArray()
      .map((row) => JSON.parse(row.health) as NodeHealth);
  }

  /** Forgets nodes not heard from since `before` (each restart of a node is a new node id). */
  prune(before: number): void {
    this.sql.exec("DELETE FROM nodes WHERE seen_at < ?", before);
    for (const [id, last] of this.written) if (last.at < before) this.written.delete(id);
  }
}
