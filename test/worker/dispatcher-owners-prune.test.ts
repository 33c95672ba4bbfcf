/**
 * The Dispatcher's `owners` table (each key's last serve) no longer keeps a row for every key ever
 * served: each save of the serves (every SAVE_SERVES_EVERY) forgets the keys with nothing waiting and
 * nothing running that were served before every waiting key (durable-objects/dispatcher/turn-index.ts
 * `forgetIdleServes`). The order among the keys that wait is unchanged, and a forgotten key that comes
 * back goes where its old serve put it: ahead of the keys served since.
 */
import { runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { SAVE_SERVES_EVERY } from "../../durable-objects/dispatcher/fair-queue.ts";
import {
  grantOne,
  lineUpTwoKeys,
  scheduler as named,
  restart as restartNamed,
  type Scheduler,
  task,
} from "./serve-order.ts";

const NAME = "owners-prune/one-off-keys";
const scheduler = () => named(NAME);
const restart = () => restartNamed(NAME);

const savedKeys = (stub: Scheduler) =>
  runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ owner: string }>("SELECT owner FROM owners ORDER BY owner")
      .toArray()
      .map((row) => row.owner),
  );

it("forgets one-off keys at the next save and keeps the rotation among the keys that wait", async () => {
  let stub = scheduler();
  // Serves 1 to SAVE_SERVES_EVERY - 2: one task each of as many one-off keys, each done at once.
  for (let i = 0; i < SAVE_SERVES_EVERY - 2; i++) {
    await stub.enqueue(task(`once-${i}`, `one-off-${i}`));
    await stub.release((await grantOne(stub)).leaseId, "finished");
  }
  // B's oldest task is served first (serve 63), then A's (serve 64, which saves): both still wait.
  const [firstLease, secondLease] = await lineUpTwoKeys(stub);

  expect(await savedKeys(stub)).toEqual(["key-a", "key-b"]);

  // Across a restart too, B (served longest ago) goes before A, as before the save.
  for (const leaseId of [firstLease, secondLease]) await stub.release(leaseId, "finished");
  stub = await restart();
  // A forgotten key that comes back reads "never served": ahead of B and A, as its serve 1 put it.
  await stub.enqueue(task("once-again", "one-off-0"));
  const order: string[] = [];
  for (let i = 0; i < 3; i++) {
    const granted = await grantOne(stub);
    order.push(granted.taskId);
    await stub.release(granted.leaseId, "finished");
  }
  expect(order).toEqual(["once-again", "b2", "a2"]);
});
