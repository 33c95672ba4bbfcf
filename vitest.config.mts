import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cloudflareTest, type D1Migration, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// No network from wrangler/miniflare: no metrics, no fetch of the Request.cf object (docs/deployment.md,
// "Local development offline").
process.env.WRANGLER_SEND_METRICS ??= "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
process.env.WRANGLER_HIDE_BANNER ??= "true";

/** The node token the Worker tests use; real deployments set NODE_TOKEN as a secret. */
const TEST_NODE_TOKEN = "test-node-token";
/** HMAC key of the Worker's signed PUT route in tests; `npm start` writes a random one to .dev.vars. */
const TEST_UPLOAD_SIGNING_SECRET = "test-upload-signing-secret";

/** User JWT settings of the Worker tests (test/worker/user-jwt.test.ts signs HS256 tokens with the secret). */
const TEST_JWT_ISSUER = "https://id.voxedge.test";
const TEST_JWT_AUDIENCE = "voxedge-content";
const TEST_JWT_SECRET = "test-jwt-secret-of-at-least-32-characters";

/** The test files run under a short LIVE_MAX_SESSION_SEC (/ws and single-device sessions, room speakers). */
const SESSION_CAP_TESTS = ["test/worker/live-session-cap.test.ts", "test/worker/rooms-stream-cap.test.ts"];
/** The test files run with partitioned speech Dispatchers (DISPATCHER_PARTITIONS = 4). */
const PARTITION_TESTS = ["test/worker/dispatcher-partitions.test.ts"];
/** The test files run with partitioned speech Dispatchers under a numeric cap their pool's root leases. */
const PARTITION_CAP_TESTS = ["test/worker/pool-root.test.ts"];
/** The one test file run under a short AUTH_CACHE_TTL_SEC. */
const REVOCATION_TEST = "test/worker/security-node-revocation.test.ts";

/**
 * A project of Worker and Durable Object code inside real workerd (vitest-pool-workers), with the
 * test bindings and `bindings` on top.
 */
function workersProject(
  migrations: D1Migration[],
  name: string,
  include: string[],
  exclude: string[],
  bindings: Record<string, string> = {},
) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => {
        const allowlist = [
          inject("fixtureOrigin"),
          inject("loopbackHitsOrigin"),
          inject("tarpitOrigin"),
          inject("identityProviderOrigin"),
        ].map((origin) => new URL(origin).host);
        const allowlistedAddresses = allowlist.map((host) => `${new URL(`http://${host}`).hostname}/32`);
        return {
          main: "./worker/index.ts",
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            // The Worker's fetch reaches public addresses and the allowlisted ones only, as on a self-hosted
            // workerd (docs/deployment.md); miniflare's default lets it reach private and loopback ones.
            outboundService: { network: { allow: ["public", ...allowlistedAddresses], deny: [] } },
            bindings: {
              TEST_MIGRATIONS: migrations,
              NODE_TOKEN: TEST_NODE_TOKEN,
              UPLOAD_SIGNING_SECRET: TEST_UPLOAD_SIGNING_SECRET,
              // Only the fixture server, the webhook tarpit and the loopback name's hit counter (private
              // addresses on random ports) get past the SSRF guard.
              URL_ALLOWLIST: allowlist.join(","),
              // Short, so the live tests see a silent client time out quickly.
              LIVE_IDLE_TIMEOUT_MS: "1500",
              // User JWTs: the test identity provider's key set (RS256), and a shared HS256 secret.
              AUTH_JWT_ISSUER: TEST_JWT_ISSUER,
              AUTH_JWT_AUDIENCE: TEST_JWT_AUDIENCE,
              AUTH_JWT_JWKS_URL: `${inject("identityProviderOrigin")}/jwks.json`,
              AUTH_JWT_SECRET: TEST_JWT_SECRET,
              // A rotated key is fetched at once (deployments wait at least 30 s between fetches).
              AUTH_JWT_JWKS_REFRESH_SEC: "0",
              ...bindings,
            },
          },
        };
      }),
    ],
    test: {
      name,
      include,
      exclude,
      globalSetup: [
        "./test/helpers/fixture-server.ts",
        "./test/helpers/loopback-name.ts",
        "./test/helpers/identity-provider.ts",
      ],
      setupFiles: ["./test/worker/apply-migrations.ts"],
    },
  };
}

// Projects: Worker and Durable Object code runs inside real workerd (vitest-pool-workers);
// the inference node, the native addon and the CLIs run in plain Node.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("migrations");
  // wrangler.toml serves web/dist as the Worker's assets; `npm install` builds it, this covers a checkout
  // whose install skipped it.
  if (!existsSync("web/dist/index.html"))
    execFileSync(process.execPath, ["scripts/build-web.mjs"], { stdio: "inherit" });
  return {
    test: {
      // Request logs of passing tests are noise; a failing test still shows its output.
      silent: "passed-only",
      projects: [
        workersProject(
          migrations,
          "workers",
          ["test/worker/**/*.test.ts"],
          [...SESSION_CAP_TESTS, REVOCATION_TEST, ...PARTITION_TESTS, ...PARTITION_CAP_TESTS],
        ),
        // The same Worker with four partitions per speech pool (which needs the `auto` cap).
        workersProject(migrations, "workers-partitions", PARTITION_TESTS, [], {
          DISPATCHER_PARTITIONS: "4",
          MAX_CONCURRENT_TRANSCRIBE_JOBS: "auto",
        }),
        // Four partitions under a numeric cap of 3: the pool's root leases it in slot budgets.
        workersProject(migrations, "workers-partitions-cap", PARTITION_CAP_TESTS, [], {
          DISPATCHER_PARTITIONS: "4",
          MAX_CONCURRENT_TRANSCRIBE_JOBS: "3",
        }),
        // The same Worker with a short live-session cap, for the tests that meet it (every other live
        // test would, with a cap this short).
        workersProject(migrations, "workers-session-cap", SESSION_CAP_TESTS, [], {
          LIVE_MAX_SESSION_SEC: "3",
        }),
        // The same Worker with a one-second credential cache, so a revoked node's live sockets close
        // within the test's patience (2 × AUTH_CACHE_TTL_SEC).
        workersProject(migrations, "workers-auth-ttl", [REVOCATION_TEST], [], {
          AUTH_CACHE_TTL_SEC: "1",
          // A client idle through the revocation window must hear the revocation, not its idle timeout.
          LIVE_IDLE_TIMEOUT_MS: "10000",
        }),
        {
          test: {
            name: "node",
            environment: "node",
            // test/web: the console's pure parts (web/src), which need no page and no platform.
            include: ["test/node/**/*.test.ts", "test/native/**/*.test.ts", "test/web/**/*.test.ts"],
            testTimeout: 120_000,
            hookTimeout: 300_000,
            pool: "forks",
          },
        },
        {
          // The web console in a real browser (Debian's Chromium driven by playwright-core) against the
          // whole platform (wrangler dev serving web/dist + an inference node), started once per run.
          test: {
            name: "browser",
            environment: "node",
            include: ["test/browser/**/*.test.ts"],
            globalSetup: ["./test/browser/global-stack.ts"],
            testTimeout: 180_000,
            hookTimeout: 300_000,
            pool: "forks",
            // One live-mic gate and one shared stack: the files take turns.
            fileParallelism: false,
          },
        },
        {
          // The whole platform: wrangler dev + inference node processes + ffmpeg, over loopback.
          test: {
            name: "e2e",
            environment: "node",
            include: ["test/e2e/**/*.test.ts"],
            testTimeout: 180_000,
            hookTimeout: 300_000,
            pool: "forks",
          },
        },
      ],
    },
  };
});
