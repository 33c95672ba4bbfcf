/**
 * API key administration.
 *
 *   npm run keys -- create --name NAME [--service] [--remote]   prints the new key alone on the last line;
 *     --service makes a service key (vxs_…): a backend's key that may act for its users on the content
 *     and notes routes (X-Voxedge-User)
 *   npm run keys -- list [--remote]
 *   npm run keys -- revoke ID [--remote]
 *   npm run keys -- webhook-secret ID [--rotate] [--remote]   prints the key's webhook signing secret
 *     (whsec_…) alone on the last line; --rotate makes a new one (the old one still signs for 24 h)
 *
 * Local by default (the D1 database `npm start` uses; --persist-to DIR for another local state
 * folder); --remote manages production D1.
 */
import { generateApiKey, generateServiceKey, newWebhookSecret } from "../worker/auth/key-material.ts";
import { type CredentialKind, createCredential, runAsProgram } from "./lib/credentials-cli.ts";
import { type D1Target, d1Query, sqlString } from "./lib/wrangler.ts";

/**
 * Shows a key's webhook signing secret, making it when the key has none; with `rotate`, a new one
 * replaces it and the old one is kept as the previous secret (deliveries carry both signatures for 24 h).
 */
function webhookSecret(id: string | undefined, rotate: boolean, target: D1Target): number {
  if (!id) {
    console.error("usage: npm run keys -- webhook-secret ID [--rotate]  [--remote | --persist-to DIR]");
    return 2;
  }
  const key = sqlString(id);
  const fresh = sqlString(newWebhookSecret());
  const sql = rotate
    ? `UPDATE api_keys SET webhook_secret_previous = webhook_secret, webhook_secret = ${fresh}, webhook_secret_rotated_at = ${Date.now()} WHERE id = ${key} AND revoked_at IS NULL RETURNING webhook_secret AS secret`
    : `UPDATE api_keys SET webhook_secret = COALESCE(webhook_secret, ${fresh}) WHERE id = ${key} AND revoked_at IS NULL RETURNING webhook_secret AS secret`;
  const [row] = d1Query<{ secret: string }>(sql, target);
  if (!row) {
    console.error(`no active key with id ${id}`);
    return 1;
  }
  console.log(
    rotate
      ? `rotated the webhook secret of key ${id}; the previous one still signs for 24 h. New secret:`
      : `webhook signing secret of key ${id} (Standard Webhooks, verify with the standardwebhooks package):`,
  );
  console.log(row.secret);
  return 0;
}

const API_KEYS: CredentialKind = {
  noun: "key",
  script: "keys",
  table: "api_keys",
  hashColumn: "key_hash",
  generate: generateApiKey,
  service: { generate: generateServiceKey, columns: { kind: "service" } },
  listed: "kind != 'user'",
  extraCommands: { "webhook-secret": webhookSecret },
};

/** Creates a key and returns its secret; only the hash reaches the database. */
export async function createKey(name: string, target: D1Target): Promise<{ id: string; key: string }> {
  const { id, secret } = await createCredential(API_KEYS, name, target);
  return { id, key: secret };
}

runAsProgram(API_KEYS, import.meta.url);
