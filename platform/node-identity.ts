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
