import type { WorkClass } from "../../protocol/task.ts";

/** A computed total is reused this long unless an offer changed. */
const TOTAL_REUSE_MS = 1000;

interface Offer {
  slots: number;
  seenAt: number;
}

/**
 * The slots the connected nodes offer each work class, for a concurrency cap of `auto`: a node offers
 * what its lease ask can take now plus the leases it holds here (its whole capacity), and stays counted
 * while it asks or heartbeats within NODE_STALE_SEC. Memory only: after a restart the figure grows back
 * as nodes ask again (a busy node's slots count again at its next ask; nothing running is cut short).
 */
export class FleetSlots {
  private readonly offers = new Map<WorkClass, Map<string, Offer>>();
  private readonly totals = new Map<WorkClass, { slots: number; at: number }>();

  /** Node `nodeId` offers `slots` to `workClass` (its ask's capacity plus the leases it holds). */
  offer(workClass: WorkClass, nodeId: string, slots: number, now: number): void {
    const offers = this.offers.get(workClass) ?? new Map<string, Offer>();
    this.offers.set(workClass, offers);
    if (offers.get(nodeId)?.slots !== slots) this.totals.delete(workClass);
    offers.set(nodeId, { slots, seenAt: now });
  }

  /** The node is still there (a heartbeat): its offers stay counted. */
  seen(nodeId: string, now: number): void {
    for (const offers of this.offers.values()) {
      const offer = offers.get(nodeId);
      if (offer) offer.seenAt = now;
    }
  }

  /** The slots offered to `workClass` by nodes heard from since `since`; stale offers are dropped. */
  total(workClass: WorkClass, now: number, since: number): number {
    const cached = this.totals.get(workClass);
    if (cached && now - cached.at < TOTAL_REUSE_MS) return cached.slots;
    const offers = this.offers.get(workClass) ?? new Map<string, Offer>();
    let slots = 0;
    for (const [nodeId, offer] of offers) {
      if (offer.seenAt < since) offers.delete(nodeId);
      else slots += offer.slots;
    }
    this.totals.set(workClass, { slots, at: now });
    return slots;
  }
}
