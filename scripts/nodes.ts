/**
 * Inference node identities: one token per node, so one node can be shut out without touching the
 * others. The node presents its token as it would NODE_TOKEN (`--token` or the NODE_TOKEN variable).
 *
 *   npm run nodes -- create --name NAME [--remote]   prints the new token alone on the last line
 *   npm run nodes -- list [--remote]
 *   npm run nodes -- revoke ID [--remote]            refused on every /internal route and node socket within 2 × AUTH_CACHE_TTL_SEC
 *
 * Local by default (the D1 database `npm start` uses; --persist-to DIR for another local state
 * folder); --remote manages production D1.
 */
import { generateNodeToken } from "../worker/auth/key-material.ts";
import { type CredentialKind, createCredential, runAsProgram } from "./lib/credentials-cli.ts";
import type { D1Target } from "./lib/wrangler.ts";

const NODE_IDENTITIES: CredentialKind = {
  noun: "node",
  script: "nodes",
  table: "nodes",
  hashColumn: "token_hash",
  generate: generateNodeToken,
};

/** Creates a node identity and returns its token; only the hash reaches the database. */
export async function createNode(name: string, target: D1Target): Promise<{ id: string; token: string }> {
  const { id, secret } = await createCredential(NODE_IDENTITIES, name, target);
  return { id, token: secret };
}

runAsProgram(NODE_IDENTITIES, import.meta.url);
