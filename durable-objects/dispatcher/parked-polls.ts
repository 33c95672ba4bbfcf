import type { NodeIdentity } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import type { LeaseRow } from "./lease-table.ts";

interface Waiter {
  ask: LeaseAsk;
  /** The Worker's name for a wait it may withdraw (it waits on several schedulers at once). */
  waitId: string | undefined;
  node: NodeIdentity;
  resolve: (leases: LeaseRow[]) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** The grants a wake-up walk makes (the Dispatcher's grant policy). */
export interface WakeGrants {
  canGrantAny(): boolean;
  canGrant(kinds: readonly TaskKind[]): boolean;
  grant(ask: LeaseAsk, node: NodeIdentity): LeaseRow[];
}

/**
 * The nodes long-polling a Dispatcher for work: each waits until work is granted to it, it withdraws,
 * or its `wait_ms` runs out (then it gets no lease). Memory only: a restarted object's nodes ask again.
 */
export class ParkedPolls {
  private waiters: Waiter[] = [];

  get size(): number {
    return this.waiters.length;
  }

  /** Parks an ask that got nothing; resolves with its leases, or none after `wait_ms`. */
  park(ask: LeaseAsk, node: NodeIdentity, waitId: string | undefined): Promise<LeaseRow[]> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        ask,
        waitId,
        node,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve([]);
        }, ask.wait_ms),
      };
      this.waiters.push(waiter);
    });
  }

  /** Ends a wait early with no lease: the node that asked got work from another scheduler. */
  withdraw(waitId: string): void {
    const waiter = this.waiters.find((w) => w.waitId === waitId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters = this.waiters.filter((w) => w !== waiter);
    waiter.resolve([]);
  }

  /**
   * Wakes long-polling nodes, oldest first, while there is work and room for it. A waiter is tried only
   * when some kind it serves has a task waiting in a class with a free slot, and the walk stops once no
   * class has both, so a parked fleet costs nothing while the slots are full or the line is empty.
   * Returns the expiry of the last leases granted (undefined: none were).
   */
  serve(grants: WakeGrants): number | undefined {
    let expiry: number | undefined;
    for (const waiter of [...this.waiters]) {
      if (!grants.canGrantAny()) break;
      if (!grants.canGrant(waiter.ask.kinds)) continue;
      const granted = grants.grant(waiter.ask, waiter.node);
      if (granted.length === 0) continue;
      expiry = granted[0]?.expires_at;
      clearTimeout(waiter.timer);
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(granted);
    }
    return expiry;
  }
}
