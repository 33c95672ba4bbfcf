/**
 * A grant no longer writes its key's last serve: a lease keeps the serve that made it, and the keys'
 * serves are saved together every SAVE_SERVES_EVERY serves (durable-objects/dispatcher/fair-queue.ts).
 * Across a restart of the Dispatcher the rotation's order is therefore exact while a lease or a save holds
 * each key's last serve, and otherwise loses exactly the serves the module documents.
 *
 * Every case lines up two keys so that their order after the restart tells which serves survived: key B's
 * first task is the oldest and is served first, then A's; once both are released (running 0 each) the rule
 * serves the key served longest ago, B, while with their serves lost both read "never served" and the older
 * head goes first, A's.
 */
import { describe, expect, it } from "vitest";
import { SAVE_SERVES_EVERY } from "../../durable-objects/dispatcher/fair-queue.ts";
import { grantOne, lineUpTwoKeys, scheduler as named, restart as restartNamed, task } from "./serve-order.ts";

const scheduler = (name: string) => named(`serves-restart/${name}`);
const restart = (name: string) => restartNamed(`serves-restart/${name}`);

describe("the rotation's serves across a Dispatcher restart", () => {
  it("keeps the order exact while the leases that made the last serves are still out", async () => {
    let stub = scheduler("leases-out");
    const leases = await lineUpTwoKeys(stub);
    stub = await restart("leases-out");
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("keeps the order exact once SAVE_SERVES_EVERY serves have saved them, their leases ended", async () => {
    let stub = scheduler("saved");
    // Another key's serves first, so that A's grant is serve number SAVE_SERVES_EVERY, which saves.
    for (let i = 0; i < SAVE_SERVES_EVERY - 2; i++) {
      await stub.enqueue(task(`f${i}`, "key-f"));
      await stub.release((await grantOne(stub)).leaseId, "finished");
    }
    const leases = await lineUpTwoKeys(stub);
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    stub = await restart("saved");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("saves after a restart the serves that only running leases held, so their end loses nothing", async () => {
    let stub = scheduler("held-then-saved");
    const leases = await lineUpTwoKeys(stub);
    stub = await restart("held-then-saved");
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    // Serves 3 to SAVE_SERVES_EVERY (interactive tasks, served ahead of A's and B's waiting ones): the
    // last one saves, B's and A's serves (their leases gone) included.
    for (let i = 0; i < SAVE_SERVES_EVERY - 2; i++) {
      await stub.enqueue(task(`f${i}`, "key-f", "interactive"));
      await stub.release((await grantOne(stub)).leaseId, "finished");
    }
    stub = await restart("held-then-saved");
    expect((await grantOne(stub)).taskId).toBe("b2");
  });

  it("loses the serves of ended leases made since the last save: those keys rejoin as never served", async () => {
    let stub = scheduler("lost");
    const leases = await lineUpTwoKeys(stub);
    for (const leaseId of leases) await stub.release(leaseId, "finished");
    stub = await restart("lost");
    // The documented reorder: B would go first; both read "never served", so A's older head does.
    expect((await grantOne(stub)).taskId).toBe("a2");
    // Each key's own FIFO and the line itself are untouched.
    expect((await grantOne(stub)).taskId).toBe("b2");
  });
});
