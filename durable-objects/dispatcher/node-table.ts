import type { NodeHealth } from "../../protocol/node.ts";

/** The last word of each inference node, from its lease and heartbeat calls. */
export class NodeTable {
  constructor(private readonly sql: SqlStorage) {}

  record(health: NodeHealth, now: number): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO nodes (node_id, health, seen_at) VALUES (?, ?, ?)",
      health.node_id,
      JSON.stringify(health),
      now,
    );
  }

  /** Nodes heard from since `since`, freshest first. */
  live(since: number): NodeHealth[] {
    return this.sql
      .exec<{ health: string }>("SELECT health FROM nodes WHERE seen_at >= ? ORDER BY seen_at DESC", since)
      .toArray()
      .map((row) => JSON.parse(row.health) as NodeHealth);
  }
}
