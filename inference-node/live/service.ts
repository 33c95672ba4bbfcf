import type { WhisperModel } from "../../native/index.ts";
import { LIVE_NODE_PATH, liveSessionPath } from "../../protocol/live.ts";
import type { Logger } from "../logger.ts";
import { HubLink } from "./hub-link.ts";
import type { LiveOptions } from "./options.ts";
import { serveSession } from "./session-link.ts";
import type { DecodeStat } from "./transcriber.ts";

export interface LiveServiceOptions {
  /** The Worker's base URL (http or https); the sockets use ws or wss on the same origin. */
  workerUrl: string;
  token: string;
  nodeId: string;
  /** Registry id of the loaded model, shown to the hub. */
  modelId: string;
  model: WhisperModel;
  options: LiveOptions;
  logger: Logger;
  onDecode?: (stat: DecodeStat) => void;
}

export interface LiveService {
  /** Leaves the hub and ends running sessions (their clients get an error and close 1011). */
  stop(): Promise<void>;
}

/**
 * Starts the node's live side: the hub link, and one streaming engine per assigned session.
 *
 * @example
 * const live = startLiveService({ workerUrl, token, nodeId, modelId: "whisper-base", model, options, logger });
 * await live.stop();
 */
export function startLiveService(o: LiveServiceOptions): LiveService {
  const base = o.workerUrl.replace(/^http/, "ws").replace(/\/+$/, "");
  const stopping = new AbortController();
  const sessions = new Set<Promise<void>>();
  const deps = {
    model: o.model,
    options: o.options,
    logger: o.logger,
    ...(o.onDecode && { onDecode: o.onDecode }),
  };
  const hub = new HubLink({
    url: `${base}${LIVE_NODE_PATH}`,
    token: o.token,
    register: { type: "register", node_id: o.nodeId, model: o.modelId, capacity: o.options.capacity },
    logger: o.logger,
    onAssign: (sessionId) => {
      o.logger.info({ session_id: sessionId }, "live: session assigned");
      const run = serveSession(`${base}${liveSessionPath(sessionId)}`, o.token, deps, stopping.signal)
        .catch((error: unknown) =>
          o.logger.error({ session_id: sessionId, err: String(error) }, "live: session failed"),
        )
        .finally(() => sessions.delete(run));
      sessions.add(run);
    },
  });
  hub.start();
  return {
    stop: async () => {
      hub.stop();
      stopping.abort();
      await Promise.all(sessions);
    },
  };
}
