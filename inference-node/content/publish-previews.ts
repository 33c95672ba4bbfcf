import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PREVIEW_FILES } from "../../protocol/content.ts";
import type { Logger } from "../logger.ts";
import type { WorkerClient } from "../worker-client.ts";
import { buildPreviews, type PreviewDeps } from "./previews.ts";

const TYPES: Record<string, string> = { png: "image/png", mp3: "audio/mpeg" };

/**
 * Renders the catalog previews (voice samples, background and template thumbnails) with the same
 * engine as real outputs, and uploads those the Worker does not hold yet. Runs once when a content
 * node starts; returns how many it uploaded.
 *
 * @example await publishMissingPreviews(client, { synthesizer, tools, signal }, logger)
 */
export async function publishMissingPreviews(
  client: WorkerClient,
  deps: PreviewDeps,
  logger: Logger,
): Promise<number> {
  // a node that stops ends the retries (never a try in flight)
  const retry = { signal: deps.signal };
  const stored = new Set(await client.storedPreviews(retry));
  const missing = [...PREVIEW_FILES].filter((file) => !stored.has(file));
  if (missing.length === 0) return 0;
  const dir = await mkdtemp(join(tmpdir(), "voxedge-previews-"));
  try {
    await buildPreviews(dir, deps);
    for (const file of missing) {
      await client.uploadPreview(
        file,
        join(dir, file),
        TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream",
        retry,
      );
    }
    logger.info({ uploaded: missing.length }, "catalog previews published");
    return missing.length;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
