import { type ModelRegistry, parseRegistry } from "../protocol/model-registry.ts";
import { parseAllowlist } from "../protocol/url-policy.ts";

/** The model registry in force: MODEL_REGISTRY (JSON) when set, else the built-in one. */
export function modelRegistry(env: Env): ModelRegistry {
  return parseRegistry(env.MODEL_REGISTRY || undefined);
}

/** Secrets a deployment may leave unset; generated types cannot mark a secret optional. */
type OptionalSecrets = Partial<
  Record<"UPLOAD_SIGNING_SECRET" | "R2_ACCESS_KEY_ID" | "R2_SECRET_ACCESS_KEY", string>
>;

function optionalSecret(env: Env, name: keyof OptionalSecrets): string | null {
  return (env as Env & OptionalSecrets)[name] || null;
}

/** Where R2's S3 API lives for this deployment. */
export interface R2S3Config {
  accountId: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** R2's S3 API settings when all four are set; null means local mode (the Worker's signed PUT route). */
export function r2S3Config(env: Env): R2S3Config | null {
  const accessKeyId = optionalSecret(env, "R2_ACCESS_KEY_ID");
  const secretAccessKey = optionalSecret(env, "R2_SECRET_ACCESS_KEY");
  if (!env.R2_ACCOUNT_ID || !env.R2_BUCKET || !accessKeyId || !secretAccessKey) return null;
  return { accountId: env.R2_ACCOUNT_ID, bucket: env.R2_BUCKET, accessKeyId, secretAccessKey };
}

/** The HMAC key of the Worker's own signed PUT route; null when the deployment has none. */
export function uploadSigningSecret(env: Env): string | null {
  return optionalSecret(env, "UPLOAD_SIGNING_SECRET");
}

/** Seconds an upload_url or a presigned audio_url stays valid. */
export function presignTtlSec(env: Env): number {
  const ttl = Number(env.PRESIGN_TTL_SEC);
  return Number.isInteger(ttl) && ttl > 0 ? ttl : 3600;
}

/** Origin for links the API mints: PUBLIC_BASE_URL, else the origin of the request being answered. */
export function publicBaseUrl(env: Env, requestUrl: string): string {
  return (env.PUBLIC_BASE_URL || new URL(requestUrl).origin).replace(/\/+$/, "");
}

/** host:port entries the SSRF guard lets through (URL_ALLOWLIST; empty in deployments). */
export function urlAllowlist(env: Env): ReadonlySet<string> {
  return parseAllowlist(env.URL_ALLOWLIST);
}

/** Retry-After for a 429: the period of the ENQUEUE_LIMITER binding. */
export function rateLimitPeriodSec(env: Env): number {
  return Number(env.RATE_LIMIT_PERIOD_SEC) || 60;
}
