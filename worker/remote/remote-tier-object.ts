import { DurableObject } from "cloudflare:workers";
import { runRemoteTasks } from "./edge-executor.ts";

/**
 * The remote recognition tier's executor, one object per remote model pool (platform/stubs.ts
 * `remoteTier`). The Queue consumer and the cron sweep only `kick` it; its alarm runs a bounded batch
 * of leases (REMOTE_TIER_LEASES_PER_RUN, edge-executor.ts) and re-arms itself while work remains, so no
 * single invocation nears a platform wall-clock limit however long the line is. An alarm that dies
 * mid-call is retried by the platform, and the lease it held expires and goes back in line.
 */
export class RemoteTier extends DurableObject<Env> {
  /** Starts a run now unless one is already due (kicks while a run is armed cost nothing). */
  async kick(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const run = await runRemoteTasks(this.env);
    if (run.workRemains) await this.ctx.storage.setAlarm(Date.now());
  }
}
