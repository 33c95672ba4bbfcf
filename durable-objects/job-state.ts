import { DurableObject } from "cloudflare:workers";
import type { TaskRecord } from "../protocol/task.ts";

const RECORD_KEY = "record";

/**
 * The fast job store: one object per task holding its current record. Every write pushes the expiry
 * out to JOB_TTL_SEC from now; when the alarm fires the entry is gone and reads fall back to D1.
 */
export class JobState extends DurableObject<Env> {
  /** The stored record, or null when none was written or it expired. */
  async read(): Promise<TaskRecord | null> {
    return (await this.ctx.storage.get<TaskRecord>(RECORD_KEY)) ?? null;
  }

  /** Replaces the record and restarts its time to live. */
  async write(record: TaskRecord): Promise<void> {
    await this.ctx.storage.put(RECORD_KEY, record);
    await this.ctx.storage.setAlarm(Date.now() + Number(this.env.JOB_TTL_SEC) * 1000);
  }

  /** Updates progress only: it is not a status change, so neither updated_at nor the expiry moves. */
  async setProgress(progress: number): Promise<void> {
    const record = await this.read();
    if (record && record.status === "processing") {
      await this.ctx.storage.put(RECORD_KEY, { ...record, progress });
    }
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
