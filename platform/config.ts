import { z } from "zod";
import { DEFAULT_LIVE_CAPACITY } from "../protocol/live.ts";
import { parseRegistry } from "../protocol/model-registry.ts";
import { DEFAULT_MAX_AUDIO_DURATION_SEC } from "../protocol/node.ts";
import { parseAllowlist } from "../protocol/url-policy.ts";

/**
 * The Worker side's configuration (the Worker and its Durable Objects): wrangler.toml [vars] and
 * secrets, parsed once per isolate with one schema. Domain code reads `workerConfig(env)`, never a raw
 * `env.X`. A bad value is a ConfigError naming every wrong variable.
 */

/** An unset or empty variable counts as absent. */
const absentIfEmpty = (value: unknown) => (value === "" || value === null ? undefined : value);
const count = (min: number) => z.coerce.number().int().min(min);
const optionalText = z.preprocess(absentIfEmpty, z.string().optional());

/** A concurrency cap: a number, or `auto` (as many as the connected nodes offer slots). */
const concurrencyCap = z.union([z.literal("auto"), count(1)]);
export type ConcurrencyCap = z.infer<typeof concurrencyCap>;

const WorkerEnv = z.object({
  JOB_TTL_SEC: count(1),
  MAX_CONCURRENT_TRANSCRIBE_JOBS: concurrencyCap,
  /** Content renders (shorts, quiz videos, decks) running at once, apart from transcriptions. */
  MAX_CONCURRENT_CONTENT_JOBS: concurrencyCap,
  LEASE_TTL_SEC: count(1),
  /** Leases one run of the remote tier's executor takes before it re-arms its alarm (worker/remote/). */
  REMOTE_TIER_LEASES_PER_RUN: count(1).default(4),
  MAX_TASK_ATTEMPTS: count(1),
  LEASE_WAIT_MAX_MS: count(0),
  NODE_STALE_SEC: count(1),
  MODEL_REGISTRY: optionalText,
  PRESIGN_TTL_SEC: count(1),
  PUBLIC_BASE_URL: z.preprocess(absentIfEmpty, z.url({ protocol: /^https?$/ }).optional()),
  URL_ALLOWLIST: optionalText,
  /**
   * Local development only (`npm start` sets it): the local egress guard every fetch of a client's URL
   * goes through, since wrangler dev's own network reaches private addresses. Unset on Cloudflare.
   */
  EGRESS_GUARD_URL: z.preprocess(absentIfEmpty, z.url({ protocol: /^http$/ }).optional()),
  R2_ACCOUNT_ID: optionalText,
  R2_BUCKET: optionalText,
  RATE_LIMIT_PERIOD_SEC: count(1),
  LIVE_IDLE_TIMEOUT_MS: count(100),
  /** The longest a /ws or single-device session may last, however busy its client keeps it. */
  LIVE_MAX_SESSION_SEC: z.preprocess(absentIfEmpty, count(1).default(7200)),
  /** Live streams (/ws and single-device sessions) one API key may hold at once. */
  LIVE_MAX_STREAMS_PER_KEY: z.preprocess(absentIfEmpty, count(1).default(2)),
  /** Live streams one node identity's hub sockets take together, whatever capacity they register. */
  LIVE_NODE_MAX_CAPACITY: z.preprocess(absentIfEmpty, count(1).default(DEFAULT_LIVE_CAPACITY)),
  /**
   * Key-affine partitions of each speech pool's Dispatcher (by owner key); with more than one, the pool's
   * root leases a numeric MAX_CONCURRENT_TRANSCRIBE_JOBS to them in slot budgets (docs/architecture.md, Scale).
   */
  DISPATCHER_PARTITIONS: z.preprocess(absentIfEmpty, count(1).max(64).default(1)),
  /** LiveHub shards the inference nodes' hub sockets are spread over (by node identity). */
  LIVE_HUB_SHARDS: z.preprocess(absentIfEmpty, count(1).max(256).default(1)),
  /** A multi-device room expires after this long without activity. */
  ROOM_TTL_SEC: z.preprocess(absentIfEmpty, count(1).default(900)),
  /** A multi-device room ends this long after it was created, however busy (its speakers' streams bound). */
  ROOM_MAX_AGE_SEC: z.preprocess(absentIfEmpty, count(1).default(43_200)),
  /** How long a room's transcript is kept for its creator after the room ends (default 7 days). */
  ROOM_TRANSCRIPT_TTL_SEC: z.preprocess(absentIfEmpty, count(0).default(604_800)),
  /** Participants of one room (a lecture hall: one speaker, many listeners; 100 is the tested maximum). */
  ROOM_MAX_PARTICIPANTS: z.preprocess(absentIfEmpty, count(2).default(100)),
  /** Participants of one room speaking at once (each holds an engine stream of the creator's key). */
  ROOM_MAX_SPEAKERS: z.preprocess(absentIfEmpty, count(1).default(2)),
  /** The defaults GET /api/v1/languages suggests (when the deployment translates that pair). */
  TRANSLATE_DEFAULT_SOURCE: z.preprocess(absentIfEmpty, z.string().default("en")),
  TRANSLATE_DEFAULT_TARGET: z.preprocess(absentIfEmpty, z.string().default("es")),
  /**
   * User JWTs on the content and notes routes (off unless AUTH_JWT_JWKS_URL or the AUTH_JWT_SECRET
   * secret is set; issuer and audience are then required): worker/auth/user-jwt.ts.
   */
  AUTH_JWT_ISSUER: optionalText,
  AUTH_JWT_AUDIENCE: optionalText,
  AUTH_JWT_JWKS_URL: z.preprocess(absentIfEmpty, z.url({ protocol: /^https?$/ }).optional()),
  /** The least time between two fetches of the key set: how soon a rotated-in key is honoured. */
  AUTH_JWT_JWKS_REFRESH_SEC: z.preprocess(absentIfEmpty, z.coerce.number().min(0).default(30)),
  AUTH_JWT_SECRET: z.preprocess(absentIfEmpty, z.string().min(32, "at least 32 characters").optional()),
  /** How long a live API key is cached (isolate and Cache API); 0 = every request reads D1. */
  AUTH_CACHE_TTL_SEC: z.preprocess(absentIfEmpty, z.coerce.number().min(0).default(15)),
  /** Optional: the synchronous endpoints' longest wait (default 540 s, under the SDK's 10 minutes). */
  SYNC_WAIT_MAX_SEC: z.preprocess(absentIfEmpty, z.coerce.number().positive().default(540)),
  /** Longest audio a transcription may have; nodes get it in every lease (default 4 h). */
  MAX_AUDIO_DURATION_SEC: z.preprocess(absentIfEmpty, count(1).default(DEFAULT_MAX_AUDIO_DURATION_SEC)),
  /**
   * GET /media needs a valid signed link (403 otherwise) instead of serving any well-formed object key
   * (the spec's default: the key's random UUID is the capability).
   */
  MEDIA_REQUIRE_SIGNATURE: z.preprocess(absentIfEmpty, z.enum(["true", "false"]).default("false")),
  /**
   * Days after which the cron sweep deletes an ended task's media (a stored upload) and outputs; the
   * task's row (history, transcript) stays. 0 or unset: kept for ever.
   */
  RETENTION_DAYS: z.preprocess(absentIfEmpty, z.coerce.number().min(0).default(0)),
  /** An upload no task was made from is deleted (object and row) by the cron sweep once this old. */
  UPLOAD_UNUSED_TTL_SEC: z.preprocess(absentIfEmpty, count(1).default(86_400)),
  /** Task webhooks: the first retry's ceiling (doubling per attempt, full jitter, capped at an hour). */
  WEBHOOK_RETRY_BASE_SEC: z.preprocess(absentIfEmpty, z.coerce.number().positive().default(10)),
  /**
   * Task webhooks: how long one attempt may take before it counts as a timeout (retried). Short: a
   * webhook consumer invocation waits this long for a receiver that never answers.
   */
  WEBHOOK_TIMEOUT_SEC: z.preprocess(absentIfEmpty, z.coerce.number().positive().max(60).default(5)),
  /**
   * Task webhooks: deliveries of one API key that may wait on their receiver (task ended, not yet
   * delivered or given up); at the cap a new task asking for a webhook is refused with 429.
   */
  WEBHOOK_MAX_PENDING_PER_KEY: z.preprocess(absentIfEmpty, z.coerce.number().int().positive().default(1000)),
  /** Enrolled speakers (/v1/speakers) one owner may keep; at the cap a new enrolment is refused with 409. */
  SPEAKERS_MAX_PER_KEY: z.preprocess(absentIfEmpty, z.coerce.number().int().positive().default(100)),
  NODE_TOKEN: optionalText,
  UPLOAD_SIGNING_SECRET: optionalText,
  R2_ACCESS_KEY_ID: optionalText,
  R2_SECRET_ACCESS_KEY: optionalText,
});

/** Where R2's S3 API lives for this deployment. */
export interface R2S3Config {
  accountId: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

function toConfig(v: z.infer<typeof WorkerEnv>) {
  const s3: R2S3Config | null =
    v.R2_ACCOUNT_ID && v.R2_BUCKET && v.R2_ACCESS_KEY_ID && v.R2_SECRET_ACCESS_KEY
      ? {
          accountId: v.R2_ACCOUNT_ID,
          bucket: v.R2_BUCKET,
          accessKeyId: v.R2_ACCESS_KEY_ID,
          secretAccessKey: v.R2_SECRET_ACCESS_KEY,
        }
      : null;
  return {
    jobTtlMs: v.JOB_TTL_SEC * 1000,
    maxConcurrentTranscribeJobs: v.MAX_CONCURRENT_TRANSCRIBE_JOBS,
    maxConcurrentContentJobs: v.MAX_CONCURRENT_CONTENT_JOBS,
    leaseTtlMs: v.LEASE_TTL_SEC * 1000,
    remoteTierLeasesPerRun: v.REMOTE_TIER_LEASES_PER_RUN,
    maxTaskAttempts: v.MAX_TASK_ATTEMPTS,
    leaseWaitMaxMs: v.LEASE_WAIT_MAX_MS,
    nodeStaleMs: v.NODE_STALE_SEC * 1000,
    modelRegistry: parseRegistry(v.MODEL_REGISTRY),
    presignTtlSec: v.PRESIGN_TTL_SEC,
    /** Origin for links the API mints; null = the origin of the request being answered. */
    publicBaseUrl: v.PUBLIC_BASE_URL?.replace(/\/+$/, "") ?? null,
    /** host:port entries the SSRF guard lets through (empty in deployments). */
    urlAllowlist: parseAllowlist(v.URL_ALLOWLIST),
    /** Where fetches of clients' URLs go instead of straight out (local development); null = straight out. */
    egressGuardUrl: v.EGRESS_GUARD_URL ?? null,
    rateLimitPeriodSec: v.RATE_LIMIT_PERIOD_SEC,
    liveIdleTimeoutMs: v.LIVE_IDLE_TIMEOUT_MS,
    liveMaxSessionMs: v.LIVE_MAX_SESSION_SEC * 1000,
    liveMaxStreamsPerKey: v.LIVE_MAX_STREAMS_PER_KEY,
    liveNodeMaxCapacity: v.LIVE_NODE_MAX_CAPACITY,
    liveHubShards: v.LIVE_HUB_SHARDS,
    dispatcherPartitions: v.DISPATCHER_PARTITIONS,
    roomTtlMs: v.ROOM_TTL_SEC * 1000,
    roomMaxAgeMs: v.ROOM_MAX_AGE_SEC * 1000,
    roomMaxParticipants: v.ROOM_MAX_PARTICIPANTS,
    roomTranscriptTtlMs: v.ROOM_TRANSCRIPT_TTL_SEC * 1000,
    roomMaxSpeakers: v.ROOM_MAX_SPEAKERS,
    translateDefaults: { source: v.TRANSLATE_DEFAULT_SOURCE, target: v.TRANSLATE_DEFAULT_TARGET },
    authCacheTtlMs: v.AUTH_CACHE_TTL_SEC * 1000,
    /** User JWT verification; null when the deployment accepts none. */
    userJwt: jwtSettings(v),
    syncWaitMaxSec: v.SYNC_WAIT_MAX_SEC,
    maxAudioDurationSec: v.MAX_AUDIO_DURATION_SEC,
    mediaRequireSignature: v.MEDIA_REQUIRE_SIGNATURE === "true",
    /** How long an ended task's media and outputs are kept; null = for ever. */
    retentionMs: v.RETENTION_DAYS > 0 ? v.RETENTION_DAYS * 86_400_000 : null,
    uploadUnusedTtlMs: v.UPLOAD_UNUSED_TTL_SEC * 1000,
    webhookRetryBaseMs: v.WEBHOOK_RETRY_BASE_SEC * 1000,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_SEC * 1000,
    webhookMaxPendingPerKey: v.WEBHOOK_MAX_PENDING_PER_KEY,
    speakersMaxPerKey: v.SPEAKERS_MAX_PER_KEY,
    nodeToken: v.NODE_TOKEN ?? null,
    /** The HMAC key of the Worker's own signed PUT route; null when the deployment has none. */
    uploadSigningSecret: v.UPLOAD_SIGNING_SECRET ?? null,
    /** R2's S3 API when all four settings are there; null means local mode (the signed PUT route). */
    r2S3: s3,
  };
}
export type WorkerConfig = ReturnType<typeof toConfig>;

/** How user JWTs are verified: the issuer's key set and/or a shared HS256 secret. */
export interface JwtSettings {
  issuer: string;
  audience: string;
  jwksUrl: string | undefined;
  /** Least ms between two fetches of the key set. */
  jwksRefreshMs: number;
  secret: string | undefined;
}

function jwtSettings(v: z.infer<typeof WorkerEnv>): JwtSettings | null {
  if (!v.AUTH_JWT_JWKS_URL && !v.AUTH_JWT_SECRET) return null;
  if (!v.AUTH_JWT_ISSUER || !v.AUTH_JWT_AUDIENCE) {
    throw new ConfigError("Worker configuration: user JWTs need AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE");
  }
  return {
    issuer: v.AUTH_JWT_ISSUER,
    audience: v.AUTH_JWT_AUDIENCE,
    jwksUrl: v.AUTH_JWT_JWKS_URL,
    jwksRefreshMs: v.AUTH_JWT_JWKS_REFRESH_SEC * 1000,
    secret: v.AUTH_JWT_SECRET,
  };
}

/** A variable with a value the schema refuses; the message names each one. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const parsed = new WeakMap<object, WorkerConfig>();

/**
 * The configuration of this deployment, parsed on first use and kept for the isolate's life.
 *
 * @example const { maxTaskAttempts } = workerConfig(env);
 */
export function workerConfig(env: Env): WorkerConfig {
  const cached = parsed.get(env);
  if (cached) return cached;
  const result = WorkerEnv.safeParse(env);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`Worker configuration: ${issues}`);
  }
  let config: WorkerConfig;
  try {
    config = toConfig(result.data);
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(`Worker configuration: MODEL_REGISTRY: ${String(cause)}`);
  }
  parsed.set(env, config);
  return config;
}

/**
 * Origin for links the API mints: PUBLIC_BASE_URL, else the origin of the request being answered.
 *
 * @example publicBaseUrl(env, "http://127.0.0.1:8787/uploads/presign") // "http://127.0.0.1:8787"
 */
export function publicBaseUrl(env: Env, requestUrl: string): string {
  return workerConfig(env).publicBaseUrl ?? new URL(requestUrl).origin;
}
