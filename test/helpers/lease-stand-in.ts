import type { Lease } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import { idleLeasePoll } from "./idle-lease-poll.ts";

/** A lease of `kind` numbered `n`; only its id matters to a LeaseLoop. */
export const numberedLease = (n: number, kind: TaskKind): Lease =>
  ({
    lease_id: `lease-${n}`,
    task_id: `task-${n}`,
    kind,
    lane: "batch",
    attempt: 1,
    expires_at: Date.now() + 60_000,
  }) as unknown as Lease;

/**
 * A WorkerClient `lease` stand-in: hands out `count` leases of `kind` one ask at a time, then idles
 * through each long poll; records every ask in `events` as `ask <capacity>`.
 */
export function leasesOneAtATime(count: number, kind: TaskKind, events: string[]) {
  let next = 1;
  return async (_n: unknown, capacity: number, _k: unknown, waitMs: number, signal?: AbortSignal) => {
    events.push(`ask ${capacity}`);
    if (next <= count) return [numberedLease(next++, kind)];
    return idleLeasePoll(waitMs, signal);
  };
}
