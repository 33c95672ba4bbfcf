/**
 * `npm start`: the whole platform on this machine. Applies D1 migrations, makes sure a node token and
 * a dev API key exist, runs wrangler dev (local D1/R2/DO/Queue under .wrangler/state; the web console
 * from web/dist, rebuilt first when its sources changed) on http://127.0.0.1:8787 and one inference
 * node, and fires the Worker's cron triggers once a minute as production does. Ctrl-C stops everything.
 *
 * The processes are supervised (scripts/lib/supervisor.ts): an inference node or APy that crashes is
 * restarted with a backoff (1 s doubling to 30 s, reset after a stable minute) and logged; the tasks a
 * crashed node held come back when their leases expire. wrangler dev exiting stops everything.
 *
 * The node serves the registry default's file (models/ggml-base.bin). The first start downloads it
 * (scripts/lib/first-model.ts: SHA-1 checked, resumable, with progress); when it cannot (offline,
 * VOXEDGE_OFFLINE=1, 404, hash mismatch) the node gets a synthetic base model with random weights, so
 * the whole pipeline runs but transcripts are noise, and a banner, /health, /models and the console
 * say so with the command that fixes it.
 *
 * Preflight (scripts/lib/preflight.ts): the system packages the platform runs are checked first; a missing
 * one is named with the apt-get command that installs it, and nothing starts.
 *
 * The Worker's fetches of clients' URLs (file_url, webhooks) go through a local egress guard
 * (lib/egress-guard.ts) that connects to public addresses and URL_ALLOWLIST's (from this process's
 * environment) only: wrangler dev's own network would reach private and loopback ones.
 *
 * Translation: when `apertium-apy` is installed (Debian: apertium-apy apertium-eng-spa) and no other
 * backend is configured (VOXEDGE_MT_BACKEND), APy runs on a free local port and the node translates
 * with it; it is stopped with everything else.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { parseRegistry, type RegistryEntry } from "../protocol/model-registry.ts";
import { parseAllowlist } from "../protocol/url-policy.ts";
import { hashSecret } from "../worker/auth/key-material.ts";
import { createKey } from "./keys.ts";
import { apertiumInstalled, spawnApertium, waitForApertium } from "./lib/apertium.ts";
import { buildConsoleIfStale } from "./lib/console-build.ts";
import { startCronTicker } from "./lib/cron.ts";
import { ensureDevSecret } from "./lib/dev-vars.ts";
import { startEgressGuard } from "./lib/egress-guard.ts";
import { ensureFirstModel, type FirstModel, firstModelSettings, syntheticBanner } from "./lib/first-model.ts";
import { spawnInferenceNode } from "./lib/inference-node.ts";
import { freePort } from "./lib/ports.ts";
import { preflight } from "./lib/preflight.ts";
import { waitForOk } from "./lib/ready.ts";
import { Supervisor } from "./lib/supervisor.ts";
import { applyMigrations, d1Query, sqlString, startWranglerDev } from "./lib/wrangler.ts";

const PORT = Number(process.env.PORT ?? 8787);
const DEV_VARS = ".dev.vars";
const DEV_KEY_FILE = ".wrangler/dev-api-key";
const MODELS_DIR = "models";
const local = { remote: false };

/** Reuses the saved dev key while it is still live in D1, else creates one. */
async function ensureDevKey(): Promise<{ key: string; created: boolean }> {
  if (existsSync(DEV_KEY_FILE)) {
    const key = readFileSync(DEV_KEY_FILE, "utf8").trim();
    const live = d1Query(
      `SELECT id FROM api_keys WHERE key_hash = ${sqlString(await hashSecret(key))} AND revoked_at IS NULL`,
      local,
    );
    if (live.length > 0) return { key, created: false };
  }
  const { key } = await createKey("dev", local);
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(DEV_KEY_FILE, `${key}\n`, { mode: 0o600 });
  return { key, created: true };
}

/** The registry default (MODEL_REGISTRY, else the built-in one): the model the node loads. */
function defaultEntry(): RegistryEntry {
  const registry = parseRegistry(process.env.MODEL_REGISTRY || undefined);
  const entry = registry.models.find((model) => model.id === registry.default_model);
  if (!entry) throw new Error(`model registry: no entry ${registry.default_model}`);
  return entry;
}

/** The model the local node serves: the real one (downloaded on first start), else the synthetic stand-in. */
function nodeModel(entry: RegistryEntry): Promise<FirstModel> {
  return ensureFirstModel({
    ...firstModelSettings(process.env),
    entry,
    modelsDir: MODELS_DIR,
    tty: Boolean(process.stderr.isTTY),
    write: (text) => process.stderr.write(text),
  });
}

/** The node's settings: quiet logs and a 5 s drain unless the environment says otherwise. */
function nodeEnv(
  translation: Record<string, string>,
  platformPid: number | undefined,
): Record<string, string> {
  return {
    VOXEDGE_LOG_LEVEL: process.env.VOXEDGE_LOG_LEVEL ?? "warn",
    VOXEDGE_DRAIN_MS: process.env.VOXEDGE_DRAIN_MS ?? "5000",
    // wrangler dev shares this machine's cores: its work for a request is not a neighbour's
    ...(platformPid !== undefined && { VOXEDGE_PLATFORM_PID: String(platformPid) }),
    ...translation,
  };
}

/** APy when it is installed and no other backend is configured; the node's translation settings. */
async function superviseTranslation(supervisor: Supervisor): Promise<Record<string, string>> {
  if (process.env.VOXEDGE_MT_BACKEND || !apertiumInstalled()) return {};
  // A fixed port, so a restarted APy is where the node already looks for it.
  const port = await freePort();
  const apy = supervisor.start({ name: "Apertium APy", spawn: () => spawnApertium(port) });
  const url = `http://127.0.0.1:${port}`;
  if (apy.child) await waitForApertium(url, apy.child);
  return { VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: url };
}

async function main(): Promise<void> {
  const { missing, message } = preflight();
  if (missing.length > 0) {
    console.error(message);
    process.exit(1);
  }
  const token = ensureDevSecret(DEV_VARS, "NODE_TOKEN");
  ensureDevSecret(DEV_VARS, "UPLOAD_SIGNING_SECRET");
  applyMigrations(local);
  buildConsoleIfStale();
  const { key, created } = await ensureDevKey();
  const entry = defaultEntry();
  const model = await nodeModel(entry);
  // wrangler dev is the platform: when it ends (crash, or its own Ctrl-C) everything stops with its code.
  const supervisor = new Supervisor({ onCriticalExit: (_name, code) => process.exit(code) });
  let stopping = false;
  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    void supervisor.stop().then(() => process.exit(code));
  };
  process.on("SIGINT", () => stopAll(0));
  process.on("SIGTERM", () => stopAll(0));
  // The console on this machine pre-fills its sign-in with the dev key: only wrangler dev gets it, and
  // the Worker hands it only to a same-origin page on a loopback host (worker/routes/console.ts).
  // wrangler dev's network reaches private and loopback addresses; the Worker's fetches of clients'
  // URLs go through the egress guard, which connects to public ones (and URL_ALLOWLIST's) only.
  const allowlist = process.env.URL_ALLOWLIST ?? "";
  const guard = await startEgressGuard(parseAllowlist(allowlist));
  const vars = {
    CONSOLE_DEV_KEY: key,
    EGRESS_GUARD_URL: guard.url,
    ...(allowlist ? { URL_ALLOWLIST: allowlist } : {}),
  };
  const platform = supervisor.start({
    name: "wrangler dev",
    critical: true,
    spawn: () => startWranglerDev(PORT, { vars, testScheduled: true }),
  });

  const base = `http://127.0.0.1:${PORT}`;
  let translation: Record<string, string>;
  try {
    await waitForOk(`${base}/health`, { timeoutMs: 120_000, intervalMs: 500 });
    translation = await superviseTranslation(supervisor);
  } catch (error) {
    await supervisor.stop();
    throw error;
  }
  startCronTicker(base);
  supervisor.start({
    name: "inference node",
    spawn: () =>
      spawnInferenceNode({
        workerUrl: base,
        token,
        model: model.path,
        env: nodeEnv(translation, platform.child?.pid),
      }),
  });
  console.log(`\nVoxedge is up on ${base}  (web console: ${base}/  API docs: ${base}/docs)`);
  console.log(`${created ? "Created" : "Using"} dev API key (saved in ${DEV_KEY_FILE}):`);
  console.log(`  ${key}`);
  console.log(
    translation.VOXEDGE_MT_URL
      ? `Translation: Apertium APy on ${translation.VOXEDGE_MT_URL} (GET ${base}/api/v1/languages).`
      : "Translation: none configured (install apertium-apy apertium-eng-spa, or set VOXEDGE_MT_BACKEND).",
  );
  console.log(model.synthetic ? `\n${syntheticBanner(entry, model)}\n` : `Inference node: ${model.path}.`);
  console.log(
    "Cron triggers: fired every minute (the recovery sweep of queued tasks, Idempotency-Key pruning).",
  );
  console.log(`Try: curl -H "Authorization: Bearer ${key}" ${base}/history\nCtrl-C stops everything.\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
