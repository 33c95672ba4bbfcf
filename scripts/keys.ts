/**
 * API key administration.
 *
 *   npm run keys -- create --name NAME [--remote]   prints the new key alone on the last line
 *   npm run keys -- list [--remote]
 *   npm run keys -- revoke ID [--remote]
 *
 * Local by default (the D1 database `npm start` uses; --persist-to DIR for another local state
 * folder); --remote manages production D1.
 */
import { generateApiKey } from "../worker/auth/key-material.ts";
import { type CredentialKind, createCredential, runAsProgram } from "./lib/credentials-cli.ts";
import type { D1Target } from "./lib/wrangler.ts";

const API_KEYS: CredentialKind = {
  noun: "key",
  script: "keys",
  table: "api_keys",
  hashColumn: "key_hash",
  generate: generateApiKey,
};

/** Creates a key and returns its secret; only the hash reaches the database. */
export async function createKey(name: string, target: D1Target): Promise<{ id: string; key: string }> {
  const { id, secret } = await createCredential(API_KEYS, name, target);
  return { id, key: secret };
}

runAsProgram(API_KEYS, import.meta.url);
