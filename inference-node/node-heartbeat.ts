import { MAX_HEARTBEAT_LEASES, type NodeHealth } from "../protocol/node.ts";
import type { Logger } from "./logger.ts";
import type { WorkerClient } from "./worker-client.ts";

/** What a running task reports with each heartbeat. */
export interface TaskReport {
  progress: number;
  step?: string;
  estimated_time_sec?: number;
}

/** How a running task hears its lease's answer. */
export interface HeartbeatListener {
  /** The current report, read at each beat. */
  report: () => TaskReport;
  /** The task was cancelled on the Worker (caller gone, task deleted): stop and report nothing. */
  onCancel: () => void;
  /** The lease expired, was released or is not this node's: stop the task. */
  onGone: () => void;
}

/**
 * One heartbeat per node: every `periodMs`, a single call extends every lease this node holds (all its
 * lease loops share it), so the scheduler hears from a node once per period however many tasks it runs.
 * It beats only while some lease is held; an idle node is heard through its lease polls.
 */
export class NodeHeartbeat {
  private readonly leases = new Map<string, HeartbeatListener>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private beating = false;

  constructor(
    private readonly client: WorkerClient,
    private readonly health: () => NodeHealth,
    private readonly periodMs: number,
    private readonly logger: Logger,
  ) {}

  /** Beats for `leaseId` until the returned function is called. */
  track(leaseId: string, listener: HeartbeatListener): () => void {
    this.leases.set(leaseId, listener);
    this.timer ??= setInterval(() => void this.beat(), this.periodMs);
    return () => {
      this.leases.delete(leaseId);
      if (this.leases.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  private async beat(): Promise<void> {
    // A beat slower than the period is not stacked on: the next one starts after it.
    if (this.beating) return;
    this.beating = true;
    try {
      const held = [...this.leases.entries()];
      for (let i = 0; i < held.length; i += MAX_HEARTBEAT_LEASES) {
        await this.beatFor(held.slice(i, i + MAX_HEARTBEAT_LEASES));
      }
    } finally {
      this.beating = false;
    }
  }

  private async beatFor(held: [string, HeartbeatListener][]): Promise<void> {
    try {
      const answers = await this.client.heartbeatNode(
        {
          node: this.health(),
          leases: held.map(([leaseId, listener]) => ({ lease_id: leaseId, ...listener.report() })),
        },
        // a beat lost to a blip is sent again within half a period, before the next one is due
        {
          budgetMs: this.periodMs / 2,
          onRetry: (reason, waitMs) =>
            this.logger.debug({ err: reason, retry_ms: waitMs }, "heartbeat not taken"),
        },
      );
      for (const answer of answers) {
        const listener = this.leases.get(answer.lease_id);
        if (answer.state === "cancel") listener?.onCancel();
        else if (answer.state === "gone") listener?.onGone();
      }
    } catch (error) {
      // A missed beat is harmless: the leases last several periods, the next beat extends them.
      this.logger.warn({ err: String(error), leases: held.length }, "heartbeat failed");
    }
  }
}
