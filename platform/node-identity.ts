import { and, inArray, isNull } from "drizzle-orm";
import { workerConfig } from "./config.ts";
import { db } from "./db.ts";
import { nodeIdentities } from "./schema.ts";

/**
 * Which node is calling: a per-node identity (D1 `nodes`, its own `vxn_` token) or the shared
 * NODE_TOKEN. The Worker resolves it (worker/auth/node-identities.ts); the Dispatcher keeps it on leases.
 */
export interface NodeIdentity {
  id: string;
  name: string;
}

/**
 * Every caller holding the shared NODE_TOKEN is this one node, for leases and logs: nodes on the
 * shared token can use each other's leases; per-node tokens are what keeps nodes apart.
 */
export const SHARED_NODE: NodeIdentity = { id: "shared", name: "shared" };

/**
 * Which of these node identities may still connect: per-node identities whose D1 row is not revoked,
 * and `shared` while NODE_TOKEN is set. Read straight from D1 (no credential cache), for the LiveHub's
 * periodic re-check of the nodes it keeps sockets open for.
 *
 * @example if (!(await unrevokedNodes(env, ["node_1"])).has("node_1")) closeItsSockets();
 */
export async function unrevokedNodes(env: Env, ids: readonly string[]): Promise<Set<string>> {
  const valid = new Set<string>();
  if (ids.includes(SHARED_NODE.id) && workerConfig(env).nodeToken !== null) valid.add(SHARED_NODE.id);
  const perNode = ids.filter((id) => id !== SHARED_NODE.id);
  if (perNode.length === 0) return valid;
  const rows = await db(env)
    .select({ id: nodeIdentities.id })
    .from(nodeIdentities)
    .where(and(inArray(nodeIdentities.id, perNode), isNull(nodeIdentities.revokedAt)));
  for (const row of rows) valid.add(row.id);
  return valid;
}
