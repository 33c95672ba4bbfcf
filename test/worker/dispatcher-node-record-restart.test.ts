/**
 * Every lease call and heartbeat reports the node's health; the Dispatcher rewrites the node's record
 * only when the health changed or the record is 10 s old (node-table.ts). What it last wrote is read back
 * when the object starts, so a restart does not make each node's next call write its record again.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Dispatcher } from "../../durable-objects/dispatcher/dispatcher.ts";
import { SHARED_NODE } from "../../platform/node-identity.ts";
import type { LeaseAsk } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";

const NAME = "node-record-restart";
const stub = (): DurableObjectStub<Dispatcher> => env.DISPATCHER.get(env.DISPATCHER.idFromName(NAME));
const ask = (gpuFreeGb: number): LeaseAsk => ({
  node: { ...NODE_HEALTH, node_id: "n-record", gpu_free_gb: gpuFreeGb },
  capacity: 1,
  wait_ms: 0,
  kinds: ["transcribe"],
});

/** The node's stored seen_at, after moving it `backMs` into the past when given (a mark the test can find). */
async function seenAt(backMs?: number): Promise<number> {
  return runInDurableObject(stub(), (_instance, state) => {
    const sql = state.storage.sql;
    if (backMs !== undefined) sql.exec("UPDATE nodes SET seen_at = seen_at - ?", backMs);
    return sql.exec<{ seen_at: number }>("SELECT seen_at FROM nodes WHERE node_id = 'n-record'").one()
      .seen_at;
  });
}

async function restart(): Promise<void> {
  await runInDurableObject(stub(), (_instance, state) => state.abort("restart")).catch(() => undefined);
}

describe("a node's record across a Dispatcher restart", () => {
  it("is not rewritten by the node's next call when its health is unchanged and the record recent", async () => {
    await stub().lease(ask(0), SHARED_NODE);
    // 1 s back: still recent, and any rewrite would move it forward again.
    const marked = await seenAt(1000);
    await restart();
    await stub().lease(ask(0), SHARED_NODE);
    expect(await seenAt()).toBe(marked);
    // A changed health is written at once.
    await stub().lease(ask(4), SHARED_NODE);
    expect(await seenAt()).toBeGreaterThan(marked);
  });
});
