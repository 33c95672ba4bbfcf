import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { whisperTools } from "../../bench/whisper-tools.ts";
import { freePort } from "../../scripts/lib/ports.ts";

/** A running whisper.cpp `whisper-server` serving the OpenAI path. */
export interface WhisperServer {
  /** Full URL of its OpenAI-compatible `POST /v1/audio/transcriptions`. */
  transcriptionsUrl: string;
  stop: () => Promise<void>;
}

/** The path whisper-server serves inference on (its `--inference-path`), OpenAI's. */
export const OPENAI_TRANSCRIPTIONS_PATH = "/v1/audio/transcriptions";

/**
 * Starts whisper-server (built once into bench/.cache from the addon's own whisper.cpp tree) on a free
 * port with `model`: inference on OpenAI's path, `--convert` so any container goes through ffmpeg. It
 * runs in a temp folder of its own, where `--convert` writes each request's file; its log is kept and
 * shown only if it fails to start.
 */
export async function startWhisperServer(model: string, threads = 2): Promise<WhisperServer> {
  const tools = await whisperTools((msg) => console.log(msg));
  const port = await freePort();
  const args = ["-m", model, "-t", String(threads), "--host", "127.0.0.1", "--port", String(port)];
  args.push("--inference-path", OPENAI_TRANSCRIPTIONS_PATH, "--convert");
  const cwd = mkdtempSync(join(tmpdir(), "voxedge-whisper-server-"));
  const child = spawn(tools.server, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderr = (stderr + text).slice(-4000);
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    const ok = await fetch(`${origin}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || i > 240) {
      await stop();
      throw new Error(`whisper-server did not start:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { transcriptionsUrl: `${origin}${OPENAI_TRANSCRIPTIONS_PATH}`, stop };
}
