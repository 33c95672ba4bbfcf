import { setTimeout as sleep } from "node:timers/promises";
import type { LeaseLoop } from "./lease-loop.ts";
import type { Logger } from "./logger.ts";

/**
 * The exit code of a node that restarts itself because every slot of one of its lease loops is held by
 * work that ignored its stop (sysexits' EX_TEMPFAIL): npm start's supervisor, systemd's
 * `Restart=on-failure` and a container's restart policy all start it again, and the exit frees the
 * thread that work held.
 */
export const EXIT_SLOTS_EXHAUSTED = 75;

/** What a stopping node winds down, in this order. */
export interface NodeParts {
  loops: readonly Pick<LeaseLoop, "drain">[];
  live: { stop(): Promise<void> } | null;
  mt: { stop(): void };
  /** The catalog previews built at start: aborted, then waited for (they remove their folder). */
  previews: { stop: AbortController; published: Promise<unknown> };
  model: { dispose(): Promise<void> };
}

/**
 * Stops the node's work: no new leases, running tasks get `drainMs` to finish and the rest are handed
 * back, live sessions end, then the model's memory is released. The release waits for decodes still
 * running, and one given up on for its stall may never return: it gets `drainMs` too, so a node that
 * restarts because of such work still exits. Resolves whether the model was released in time.
 *
 * @example
 * const { modelReleased } = await shutDownNode(parts, config.drainMs, logger);
 * process.exit(0);
 */
export async function shutDownNode(
  parts: NodeParts,
  drainMs: number,
  logger: Logger,
): Promise<{ modelReleased: boolean }> {
  parts.mt.stop();
  parts.previews.stop.abort();
  await Promise.all([
    ...parts.loops.map((loop) => loop.drain(drainMs)),
    parts.live?.stop(),
    parts.previews.published,
  ]);
  const waited = new AbortController();
  const modelReleased = await Promise.race([
    parts.model.dispose().then(() => true),
    sleep(drainMs, false, { signal: waited.signal }).catch(() => false),
  ]);
  waited.abort();
  if (!modelReleased) {
    logger.warn({ wait_ms: drainMs }, "a decode did not return: exiting without releasing the model");
  }
  return { modelReleased };
}
