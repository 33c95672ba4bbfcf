import type { NodeIdentity } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { kindsOf, type TaskKind } from "../../protocol/task.ts";
import type { LeaseRow } from "./lease-table.ts";

/**
 * How a parked poll ends: with its leases, or (`steal`) sent to steal from another partition of its
 * pool, which has speech work no poll of its own could take (`forward`).
 */
export interface ParkedAnswer {
  leases: LeaseRow[];
  steal: number | null;
}

interface Waiter {
  ask: LeaseAsk;
  /** The Worker's name for a wait it may withdraw (it waits on several schedulers at once). */
  waitId: string | undefined;
  node: NodeIdentity;
  /** Whether its asker follows a `steal` answer (a home partition's poll; see lease-ask.ts). */
  forwardable: boolean;
  resolve: (answer: ParkedAnswer) => void;
  timer: ReturnType<typeof setTimeout>;
}

const SPEECH_KINDS: readonly TaskKind[] = kindsOf("speech");
const NOTHING: ParkedAnswer = { leases: [], steal: null };

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

  /** The parked speech polls `forward` may send to steal: what a partition's summary counts. */
  get forwardable(): number {
    return this.waiters.filter(isForwardable).length;
  }

  /** Parks an ask that got nothing; resolves with its leases, or none after `wait_ms`. */
  park(
    ask: LeaseAsk,
    node: NodeIdentity,
    waitId: string | undefined,
    forwardable = false,
  ): Promise<ParkedAnswer> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        ask,
        waitId,
        node,
        forwardable,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(NOTHING);
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
    waiter.resolve(NOTHING);
  }

  /**
   * Sends the oldest forwardable speech poll to steal from partition `from`; false when none is parked
   * here (the forwarding partition's figures were behind).
   */
  forward(from: number): boolean {
    const waiter = this.waiters.find(isForwardable);
    if (!waiter) return false;
    clearTimeout(waiter.timer);
    this.waiters = this.waiters.filter((w) => w !== waiter);
    waiter.resolve({ leases: [], steal: from });
    return true;
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
      waiter.resolve({ leases: granted, steal: null });
    }
    return expiry;
  }
}

function isForwardable(waiter: Waiter): boolean {
  return waiter.forwardable && waiter.ask.kinds.some((kind) => SPEECH_KINDS.includes(kind));
}
