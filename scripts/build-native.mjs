#!/usr/bin/env node
/**
 * Builds native/build/Release/voxedge_whisper.node (whisper.cpp linked statically) with cmake-js.
 * Runs from `postinstall` and `npm run build:native` (--force). Skips when the cached build key
 * matches: a hash of our CMake/C++ sources, the whisper.cpp source tree identity and the flags.
 *
 * Environment: WHISPER_CPP_DIR (use that whisper.cpp checkout), VOXEDGE_CUDA=1 (CUDA backend),
 * VOXEDGE_CUDA_ARCHS (with CUDA: the card generations to compile for, CMake's CUDA_ARCHITECTURES, e.g.
 * "90" for H100/H200 or "native"; unset, ggml's portable list, several times the build time),
 * VOXEDGE_NATIVE=1 (-march=native, not portable), VOXEDGE_OPENMP=1 (OpenMP instead of ggml's
 * threadpool), VOXEDGE_SKIP_NATIVE=1 (do nothing), VOXEDGE_BUILD_VERBOSE=1 (show the compiler's output
 * even when the build succeeds).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nativeDir = path.join(root, "native");
const buildDir = path.join(nativeDir, "build");
const output = path.join(buildDir, "Release", "voxedge_whisper.node");
const keyFile = path.join(buildDir, "Release", "voxedge_whisper.key.json");
const require = createRequire(import.meta.url);
const force = process.argv.includes("--force");
const log = (msg) => console.log(`voxedge-native: ${msg}`);

function fail(msg) {
  console.error(`voxedge-native: ERROR: ${msg}`);
  process.exit(1);
}

function whisperDir() {
  if (process.env.WHISPER_CPP_DIR) return path.resolve(process.env.WHISPER_CPP_DIR);
  try {
    return path.join(path.dirname(require.resolve("nodejs-whisper/package.json")), "cpp", "whisper.cpp");
  } catch {
    return path.join(root, "node_modules", "nodejs-whisper", "cpp", "whisper.cpp");
  }
}

/** The whisper.cpp version from its CMakeLists, plus the npm package version that pins the default tree. */
function whisperIdentity(dir) {
  const cmake = readFileSync(path.join(dir, "CMakeLists.txt"), "utf8");
  const version = /project\("whisper\.cpp" VERSION ([\d.]+)\)/.exec(cmake)?.[1] ?? "unknown";
  let pkg = null;
  try {
    pkg = JSON.parse(readFileSync(path.join(dir, "..", "..", "package.json"), "utf8"));
  } catch {
    // a user's own checkout has no enclosing npm package
  }
  return { dir, version, package: pkg ? `${pkg.name}@${pkg.version}` : null };
}

function sourcesHash() {
  const hash = createHash("sha256");
  const srcDir = path.join(nativeDir, "src");
  const files = [
    "CMakeLists.txt",
    "package.json",
    ...readdirSync(srcDir)
      .sort()
      .map((f) => path.join("src", f)),
  ];
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(readFileSync(path.join(nativeDir, f)))
      .update("\0");
  return hash.digest("hex");
}

const flag = (name) => process.env[name] === "1" || process.env[name] === "ON";
const verbose = flag("VOXEDGE_BUILD_VERBOSE");

if (flag("VOXEDGE_SKIP_NATIVE")) {
  log("VOXEDGE_SKIP_NATIVE=1, not building the whisper addon");
  process.exit(0);
}

const dir = whisperDir();
if (!existsSync(path.join(dir, "include", "whisper.h"))) {
  fail(`whisper.cpp sources not found at ${dir} (install nodejs-whisper or set WHISPER_CPP_DIR)`);
}
if (spawnSync("cmake", ["--version"], { stdio: "ignore" }).status !== 0) {
  fail("cmake is not installed (apt-get install cmake, or brew install cmake)");
}

// Changing any of these needs a fresh CMake cache; source edits only need an incremental build.
const config = {
  whisper: whisperIdentity(dir),
  cuda: flag("VOXEDGE_CUDA"),
  // only present when set, so the key of a build without it stays what it was
  ...(flag("VOXEDGE_CUDA") && process.env.VOXEDGE_CUDA_ARCHS
    ? { cudaArchs: process.env.VOXEDGE_CUDA_ARCHS }
    : {}),
  native: flag("VOXEDGE_NATIVE"),
  openmp: flag("VOXEDGE_OPENMP"),
  platform: `${process.platform}-${process.arch}`,
  napi: 8,
  nodeAddonApi: require("node-addon-api/package.json").version,
  cmakeJs: require("cmake-js/package.json").version,
};
const key = { config, sources: sourcesHash() };
const keyText = JSON.stringify(key);

let previous = null;
try {
  previous = JSON.parse(readFileSync(keyFile, "utf8"));
} catch {
  // no previous build
}
if (!force && existsSync(output) && JSON.stringify(previous) === keyText) {
  log(`up to date, skipping build (${path.relative(root, output)}, whisper.cpp ${config.whisper.version})`);
  process.exit(0);
}
if (previous && JSON.stringify(previous.config) !== JSON.stringify(config)) {
  log("build configuration changed; starting from a clean build directory");
  rmSync(buildDir, { recursive: true, force: true });
}

const jobs = availableParallelism();
const cmakeJs = path.join(
  root,
  "node_modules",
  ".bin",
  process.platform === "win32" ? "cmake-js.cmd" : "cmake-js",
);
const defines = [
  `--CDWHISPER_CPP_DIR=${dir}`,
  `--CDVOXEDGE_CUDA=${config.cuda ? "ON" : "OFF"}`,
  `--CDVOXEDGE_NATIVE=${config.native ? "ON" : "OFF"}`,
  `--CDVOXEDGE_OPENMP=${config.openmp ? "ON" : "OFF"}`,
  ...(config.cudaArchs ? [`--CDCMAKE_CUDA_ARCHITECTURES=${config.cudaArchs}`] : []),
];
const common = ["--directory", nativeDir, "--config", "Release", "--log-level", "warn"];
log(
  `building whisper.cpp ${config.whisper.version} from ${dir} (cuda=${config.cuda}, native=${config.native}, openmp=${config.openmp}, ` +
    `${jobs} jobs); the first build takes a few minutes`,
);
const started = Date.now();
for (const step of [
  ["configure", ...common, ...defines],
  ["build", ...common, "--parallel", String(jobs)],
]) {
  // The compiler's output (whisper.cpp's own warnings included) is shown only when a step fails, or
  // always with VOXEDGE_BUILD_VERBOSE=1.
  const res = spawnSync(cmakeJs, step, {
    cwd: root,
    stdio: verbose ? "inherit" : ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 << 20,
  });
  if (res.status !== 0) {
    if (!verbose)
      process.stderr.write(`${res.stdout ?? ""}${res.stderr ?? ""}`.split("\n").slice(-200).join("\n"));
    rmSync(keyFile, { force: true });
    fail(`cmake-js ${step[0]} failed (exit ${res.status ?? res.signal}); see the output above`);
  }
}
if (!existsSync(output)) fail(`build finished but ${output} is missing`);
writeFileSync(keyFile, keyText);
log(`built ${path.relative(root, output)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
