import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** The oldest ffmpeg the node runs: the media pins (`-format_whitelist`) and filters it relies on. */
export const MIN_FFMPEG_MAJOR = 5;

/**
 * The ffmpeg binary: FFMPEG_PATH if set, else `ffmpeg` on PATH (Debian's `ffmpeg` package). There
 * is no bundled build: the node refuses to start on a missing or old one (checkFfmpeg).
 */
export function ffmpegPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.FFMPEG_PATH?.trim() || "ffmpeg";
}

/**
 * Runs `ffmpeg -version` and returns its version line; throws a message saying what to install
 * when the binary is missing, does not run, or is older than 5.0. Development snapshots
 * (`N-12345-g…`) are taken as current.
 *
 * @example await checkFfmpeg("ffmpeg") // "ffmpeg version 5.1.6-0+deb12u1 ..."
 */
export async function checkFfmpeg(path: string): Promise<string> {
  const fix = `install ffmpeg ${MIN_FFMPEG_MAJOR}.0 or newer (apt-get install ffmpeg) or set FFMPEG_PATH`;
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(path, ["-hide_banner", "-version"], { timeout: 10_000 }));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : String(error);
    throw new Error(`ffmpeg at ${path}: ${reason}; ${fix}`);
  }
  const line = stdout.split("\n")[0]?.trim() ?? "";
  const match = /^ffmpeg version n?(\d+)\.(\d+)|^ffmpeg version (N-)/.exec(line);
  if (!match)
    throw new Error(`ffmpeg at ${path} reports no version I can read (${line.slice(0, 80)}); ${fix}`);
  if (!match[3] && Number(match[1]) < MIN_FFMPEG_MAJOR)
    throw new Error(`ffmpeg at ${path} is ${match[1]}.${match[2]}, older than ${MIN_FFMPEG_MAJOR}.0; ${fix}`);
  return line;
}
