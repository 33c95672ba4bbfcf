/**
 * The real LiveHub shard and LiveKeyStreams with their storage counted, and a bench API beside their
 * own: `seed` connects simulated nodes to the hub (in-process WebSocket pairs whose node ends the object
 * keeps unread, registered with a capacity and running their share of the fleet's streams), as a hub holds them
 * after the nodes registered and reported, and `report` has each node report its load. The bench Worker
 * assigns and releases streams through the platform's own calls (durable-objects/live/live-streams.ts).
 */
import {
  NODE_TAG,
  type NodeAttachment,
  newNodeAttachment,
  usedStreams,
} from "../../durable-objects/live/engine-nodes.ts";
import { LiveKeyStreams } from "../../durable-objects/live/key-streams.ts";
import { LiveHub } from "../../durable-objects/live/live-hub.ts";
import type { LiveFleet } from "./bench-api.ts";
import { countKeyValue } from "./counting-kv.ts";
import { type StorageCounts, zeroCounts } from "./counting-storage.ts";

/** Seeded nodes count as fresh for this long (the bench outlasts a ping's staleness; nothing pings). */
const FRESH_FOR_MS = 3_600_000;

export class BenchLiveHub extends LiveHub {
  private readonly counts = zeroCounts();
  /** The nodes' ends of their hub sockets, kept open. */
  private readonly nodeEnds: WebSocket[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    countKeyValue(ctx, this.counts);
  }

  /** Connects `fleet.nodes` registered nodes running `fleet.streams` streams between them. */
  async seed(fleet: LiveFleet): Promise<void> {
    const now = Date.now();
    const capacity = Math.ceil(fleet.streams / fleet.nodes) + fleet.spare;
    for (let n = 0; n < fleet.nodes; n++) {
      const pair = new WebSocketPair();
      // the node's end is kept, never read: the assignments sent to it just queue
      this.nodeEnds.push(pair[0]);
      this.ctx.acceptWebSocket(pair[1], [NODE_TAG]);
      const running: string[] = [];
      for (let s = n; s < fleet.streams; s += fleet.nodes) running.push(`seed-${s}`);
      pair[1].serializeAttachment({
        ...newNodeAttachment(now + FRESH_FOR_MS, `id-node-${n}`),
        checked_at: now + FRESH_FOR_MS,
        registered: { node_id: `node-${n}`, model: "base", capacity },
        running,
      } satisfies NodeAttachment);
    }
  }

  /**
   * Every node's load report, as the nodes send one after a change: the streams it runs (here: all it
   * was given and not told are over) and the assignments it saw, through the hub's own message handler.
   */
  async report(): Promise<void> {
    for (const ws of this.ctx.getWebSockets(NODE_TAG)) {
      const attachment = ws.deserializeAttachment() as NodeAttachment;
      const streams = [...usedStreams(attachment)];
      await this.webSocketMessage(
        ws,
        JSON.stringify({ type: "load", streams, assigned: attachment.assigned_total }),
      );
    }
  }

  async takeCounts(): Promise<StorageCounts> {
    const taken = { ...this.counts };
    Object.assign(this.counts, zeroCounts());
    return taken;
  }
}

export class BenchKeyStreams extends LiveKeyStreams {
  private readonly counts = zeroCounts();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    countKeyValue(ctx, this.counts);
  }

  async takeCounts(): Promise<StorageCounts> {
    const taken = { ...this.counts };
    Object.assign(this.counts, zeroCounts());
    return taken;
  }
}
