/**
 * Which LiveHub shard a node's socket lives in, and which shards a new stream asks. A node identity's
 * sockets all go to one shard (a hash of the identity id), so its LIVE_NODE_MAX_CAPACITY cap and
 * revocation checks stay inside one object. A stream asks two shards drawn at random and takes the freer
 * (the power of two choices: the busiest shard is seldom asked, and no call reads every shard); only when
 * neither has a free slot does it ask the rest, which a deployment with fewer nodes than shards needs.
 */
import type { ShardLoad } from "./node-index.ts";

/**
 * The shard of a node identity: FNV-1a of its id, modulo the shard count.
 *
 * @example shardOfIdentity("node_ab12", 4); // always the same of 0..3
 */
export function shardOfIdentity(identityId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < identityId.length; i++) {
    hash ^= identityId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/**
 * Two distinct shards drawn at random (the one shard when there is one), then the rest: the order in
 * which a stream asks them.
 *
 * @example const [first, second, ...rest] = askOrder(4); // e.g. [2, 0, 1, 3]
 */
export function askOrder(shards: number, random: () => number = Math.random): number[] {
  const order = Array.from({ length: shards }, (_, i) => i);
  for (let i = 0; i < Math.min(2, shards - 1); i++) {
    const j = i + Math.floor(random() * (shards - i));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** Whether a shard could take a stream: a free slot, or for a translate-only link any engine. */
function hasRoom(load: ShardLoad, needsSlot: boolean): boolean {
  return needsSlot ? load.free > 0 : load.engines > 0;
}

/**
 * The shards worth asking for a stream, freer first, of those whose loads are known.
 *
 * @example byRoom([[0, { engines: 1, free: 0 }], [3, { engines: 2, free: 5 }]], true); // [3]
 */
export function byRoom(loads: readonly (readonly [number, ShardLoad])[], needsSlot: boolean): number[] {
  return loads
    .filter(([, load]) => hasRoom(load, needsSlot))
    .sort(([, a], [, b]) => b.free - a.free || b.engines - a.engines)
    .map(([shard]) => shard);
}
