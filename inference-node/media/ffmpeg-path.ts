import { accessSync, chmodSync, constants } from "node:fs";
import { createRequire } from "node:module";

/**
 * The ffmpeg binary: FFMPEG_PATH if set, else the static build that arrives with `npm install`
 * (@ffmpeg-installer/ffmpeg), else `ffmpeg` on PATH (e.g. Debian's).
 */
export function ffmpegPath(): string {
  if (process.env.FFMPEG_PATH) return process.env.FFMPEG_PATH;
  try {
    const { path } = createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path: string };
    ensureExecutable(path);
    return path;
  } catch {
    return "ffmpeg";
  }
}

/** The package's own postinstall makes it executable; npm may skip install scripts, so do it here. */
function ensureExecutable(path: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, 0o755);
  }
}
