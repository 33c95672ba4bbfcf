#!/usr/bin/env node
/**
 * Builds the web console (web/) into web/dist, which wrangler.toml serves as Workers Static Assets.
 * Runs from `postinstall` (so `npm install` / `npm ci` leave a servable console), `npm run build:web`
 * and `npm run build:worker`. Then measures the JavaScript the first page load needs (the entry
 * script and what it preloads, gzipped) and fails above the budget.
 *
 * `--if-stale` (how `npm start` and the browser tests' stack call it) builds only when the console's
 * sources changed since the last build: a console served from an old web/dist after a `git pull` or
 * an edit would show yesterday's UI beside today's API. The sources are hashed, not dated, because a
 * checkout rewrites files' times.
 *
 * Environment: VOXEDGE_SKIP_WEB=1 (do nothing).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { sourceHash } from "./lib/source-hash.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "web", "dist");
/** Initial JavaScript budget, gzipped (issue #12). */
const BUDGET_BYTES = 100 * 1024;
const log = (msg) => console.log(`voxedge-web: ${msg}`);

if (process.env.VOXEDGE_SKIP_WEB === "1") {
  log("skipped (VOXEDGE_SKIP_WEB=1)");
  process.exit(0);
}

/** What the console is built from: its own folder, the code it imports from the repo, the locked dependencies. */
const SOURCES = ["web", "protocol", "client", "worker", "package-lock.json"];
const SKIPPED = new Set(["dist", "node_modules"]);
/** Where the last build's source hash is kept (outside web/dist, which is served as it is). */
const stampFile = path.join(root, "node_modules", ".cache", "voxedge", "web-sources.sha256");

const sources = sourceHash(root, SOURCES, SKIPPED);
if (
  process.argv.includes("--if-stale") &&
  existsSync(path.join(dist, "index.html")) &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === sources
) {
  log("up to date with its sources");
  process.exit(0);
}

// Always the production build: Vite builds a development flavour when NODE_ENV says so, and a caller
// may run under another (vitest sets "test"), which would make the browser tests drive another console.
process.env.NODE_ENV = "production";
let vite;
try {
  vite = await import("vite");
} catch {
  // `npm ci --omit=dev` (an inference-node-only install) has no build tools: nothing to serve from there.
  log("vite is not installed (dev dependencies omitted): console not built");
  process.exit(0);
}

await vite.build({ configFile: path.join(root, "web", "vite.config.ts"), logLevel: "warn" });

/** The module scripts and modulepreloads index.html loads before the first render. */
const html = readFileSync(path.join(dist, "index.html"), "utf8");
const initial = [
  ...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="([^"]+\.js)"/g),
].map((match) => match[1]);
let total = 0;
for (const file of initial) {
  const bytes = gzipSync(readFileSync(path.join(dist, file))).length;
  total += bytes;
  log(`  ${file}: ${(bytes / 1024).toFixed(1)} KiB gzipped`);
}
log(`initial JavaScript ${(total / 1024).toFixed(1)} KiB gzipped (budget ${BUDGET_BYTES / 1024} KiB)`);
if (initial.length === 0 || total > BUDGET_BYTES) {
  console.error(
    `voxedge-web: ERROR: initial JavaScript ${initial.length === 0 ? "not found" : "over budget"}`,
  );
  process.exit(1);
}
mkdirSync(path.dirname(stampFile), { recursive: true });
writeFileSync(stampFile, sources);
