/**
 * whisper.cpp's own whisper-cli and whisper-server, the references of the `decode` and `sync` bench
 * groups: built once into bench/.cache from the addon's source tree with the addon's portability
 * flags (Release, static, AVX2/FMA/F16C) and whisper.cpp's own threading default, OpenMP with
 * libgomp's default spin: the whisper-cli people run and compare against. The addon builds ggml's
 * threadpool instead (docs/native.md "Decode threads"); the bench measures it against that default.
 * With VOXEDGE_CUDA=1 (and VOXEDGE_CUDA_ARCHS) both get the CUDA backend, as the addon does, so a GPU
 * machine compares like with like.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BUILD = path.join(ROOT, "bench", ".cache", "whisper-build");
const WHISPER_DIR =
  process.env.WHISPER_CPP_DIR ?? path.join(ROOT, "node_modules", "nodejs-whisper", "cpp", "whisper.cpp");

export interface WhisperTools {
  cli: string;
  server: string;
}

/**
 * The addon's CUDA switches (scripts/build-native.mjs), applied to the reference too. OFF is said
 * outright: CMake keeps a cached ON when a later configure leaves it out, and a rebuild without
 * VOXEDGE_CUDA kept the GPU reference on the 2026-11-28 GPU run.
 */
function cudaFlags(): string[] {
  if (process.env.VOXEDGE_CUDA !== "1" && process.env.VOXEDGE_CUDA !== "ON") return ["-DGGML_CUDA=OFF"];
  const archs = process.env.VOXEDGE_CUDA_ARCHS;
  return ["-DGGML_CUDA=ON", ...(archs ? [`-DCMAKE_CUDA_ARCHITECTURES=${archs}`] : [])];
}

/** Builds both binaries in one tree (ggml compiled once); skipped when the cached build matches. */
export async function whisperTools(log: (msg: string) => void): Promise<WhisperTools> {
  const tools = {
    cli: path.join(BUILD, "bin", "whisper-cli"),
    server: path.join(BUILD, "bin", "whisper-server"),
  };
  const flags = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DWHISPER_BUILD_TESTS=OFF",
    "-DWHISPER_BUILD_SERVER=ON",
    "-DWHISPER_BUILD_EXAMPLES=ON",
    "-DGGML_NATIVE=OFF",
    ...["SSE42", "AVX", "AVX2", "BMI2", "FMA", "F16C"].map((f) => `-DGGML_${f}=ON`),
    ...cudaFlags(),
  ];
  const key = JSON.stringify({ WHISPER_DIR, flags });
  const keyFile = path.join(BUILD, "voxedge-key.json");
  const built = existsSync(tools.cli) && existsSync(tools.server);
  if (built && (await readFile(keyFile, "utf8").catch(() => "")) === key) return tools;
  log(`building whisper-cli and whisper-server in ${path.relative(ROOT, BUILD)} (minutes on 2 cores)`);
  const ninja = spawnSync("ninja", ["--version"]).status === 0 ? ["-G", "Ninja"] : [];
  const steps = [
    ["-S", WHISPER_DIR, "-B", BUILD, ...ninja, ...flags],
    ["--build", BUILD, "--target", "whisper-cli", "whisper-server", "-j", String(availableParallelism())],
  ];
  for (const args of steps) {
    const res = spawnSync("cmake", args, { stdio: ["ignore", "ignore", "inherit"] });
    if (res.status !== 0) throw new Error(`cmake ${args[0]} failed for whisper-cli/whisper-server`);
  }
  await writeFile(keyFile, key);
  return tools;
}
