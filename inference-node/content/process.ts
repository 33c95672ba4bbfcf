/**
 * Child processes (ffmpeg, espeak-ng) run to completion or die with the task: an abort kills the
 * child at once with SIGKILL and rejects with the signal's reason, so a cancelled render frees the
 * CPU promptly.
 */
import { spawn } from "node:child_process";
import type { ContentErrorCode } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";

export interface RunToolOptions {
  signal: AbortSignal;
  /** Written to the child's stdin, then closed. */
  input?: string | Buffer;
  /** Called with each stdout chunk (e.g. ffmpeg `-progress pipe:1`); stdout is not kept then. */
  onStdout?: (chunk: string) => void;
  /** The child's environment when not the node's own (e.g. FONTCONFIG_FILE for librsvg). */
  env?: NodeJS.ProcessEnv;
  /** Error codes for "binary not found" and "exited non-zero". */
  missingCode: ContentErrorCode;
  failedCode: ContentErrorCode;
}

/** Most of stderr is progress noise; keep the tail for the error message. */
const STDERR_TAIL = 2000;

/**
 * Runs `command args`, resolves with stdout (as a Buffer) when it exits 0.
 *
 * @example
 * await runTool("ffmpeg", ["-version"], { signal, missingCode: "renderer_unavailable", failedCode: "render_failed" });
 */
export function runTool(command: string, args: readonly string[], options: RunToolOptions): Promise<Buffer> {
  const { signal } = options;
  return new Promise<Buffer>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"], env: options.env ?? process.env });
    const stdout: Buffer[] = [];
    let stderr = "";
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      child.kill("SIGKILL");
      settle(() => reject(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      if (options.onStdout) options.onStdout(chunk.toString("utf8"));
      else stdout.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    child.stdin.on("error", () => {
      // The child may exit before reading all input (e.g. on bad args); the exit code reports that.
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code === "ENOENT" ? options.missingCode : options.failedCode;
      const what =
        error.code === "ENOENT" ? "is not installed (not found on PATH)" : `failed: ${error.message}`;
      settle(() => reject(new ContentError(code, `${command} ${what}`, { cause: error })));
    });
    child.on("close", (exitCode, exitSignal) => {
      if (exitCode === 0) {
        settle(() => resolve(Buffer.concat(stdout)));
        return;
      }
      const how = exitSignal ? `was killed by ${exitSignal}` : `exited with ${exitCode}`;
      settle(() =>
        reject(new ContentError(options.failedCode, `${command} ${how}: ${stderr.trim().slice(-600)}`)),
      );
    });
    child.stdin.end(options.input ?? "");
  });
}
