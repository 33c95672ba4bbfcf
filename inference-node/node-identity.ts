import type { NodeWhoami } from "../protocol/node.ts";
import type { Logger } from "./logger.ts";
import { NodeTokenRefusedError, type WorkerClient } from "./worker-client.ts";

/** Waits between asks while the Worker cannot be reached, doubling up to the cap. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10_000;

/**
 * Asks the Worker which node identity this node's token names, then returns the logger every later
 * line goes through, carrying `node` (the identity's name), after logging "node identity: NAME" once.
 * A node may start before its Worker answers: unreachable, it asks again (the wait doubling up to
 * 10 s); a refused token ends the start at once (NodeTokenRefusedError).
 */
export async function identifiedLogger(
  client: Pick<WorkerClient, "whoami">,
  base: Logger,
): Promise<{ identity: NodeWhoami; logger: Logger }> {
  let waitMs = FIRST_RETRY_MS;
  for (;;) {
    try {
      const identity = await client.whoami();
      const logger = base.child({ node: identity.name });
      logger.info({ node_identity_id: identity.id }, `node identity: ${identity.name}`);
      return { identity, logger };
    } catch (error) {
      if (error instanceof NodeTokenRefusedError) throw error;
      base.warn(
        { err: String(error), retry_ms: waitMs },
        "the Worker did not say who this node is; asking again",
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, MAX_RETRY_MS);
    }
  }
}
