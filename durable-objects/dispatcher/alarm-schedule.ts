/**
 * A Durable Object's alarm, kept at or before its next deadline. Only ever moved earlier (an alarm that
 * comes too early finds nothing to do and sets the next one), so a deadline later than the alarm
 * already set, as a grant's or a heartbeat's is, costs no storage call.
 */
export class AlarmSchedule {
  /** The alarm set in storage (null: none; undefined: not read yet since the object started). */
  private alarmAt: number | null | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** The alarm went off: none is set until the next `keepBy`. */
  fired(): void {
    this.alarmAt = null;
  }

  /** Sets the alarm to `next` unless one already comes at or before it. */
  async keepBy(next: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= next) return;
    await this.storage.setAlarm(next);
    this.alarmAt = next;
  }
}
