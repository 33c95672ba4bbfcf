import type { WhisperModel } from "../../native/index.ts";
import { LIVE_NODE_PATH } from "../../protocol/live.ts";
import type { Logger } from "../logger.ts";
import { LatencyMeter } from "../translate/fan-out.ts";
import type { Translator } from "../translate/translator.ts";
import type { VoiceActivity } from "../vad/voice-activity.ts";
import { DecodeGate } from "./decode-gate.ts";
import { HubLink } from "./hub-link.ts";
import { LiveSpeech, type SpeechEngine } from "./live-speech.ts";
import type { LiveOptions } from "./options.ts";
import { serveSession, serveTranslateLink } from "./session-link.ts";
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
  vad: VoiceActivity;
  /** Translates finals (and fast interims) of streams that ask for it; null: transcription only. */
  translator: Translator | null;
  /** Speaks rooms' finals on request; null: this node answers tts_unavailable. */
  speech: SpeechEngine | null;
  logger: Logger;
  onDecode?: (stat: DecodeStat) => void;
}

export interface LiveService {
  /** Leaves the hub and ends running sessions (their clients get an error and close 1011). */
  stop(): Promise<void>;
}

/**
 * Starts the node's live side: the hub link, one streaming engine per assigned stream (a /ws or
 * single-device session, or one speaker of a room), and translate-only links for rooms.
 *
 * @example
 * const live = startLiveService({ workerUrl, token, nodeId, modelId: "whisper-base", model, options, translator, logger });
 * await live.stop();
 */
export function startLiveService(o: LiveServiceOptions): LiveService {
  const base = o.workerUrl.replace(/^http/, "ws").replace(/\/+$/, "");
  const stopping = new AbortController();
  const sessions = new Set<Promise<void>>();
  const streams = new Set<string>();
  const deps = {
    model: o.model,
    options: o.options,
    vad: o.vad,
    gate: new DecodeGate(o.options.cores, o.options.threadsPerDecode),
    logger: o.logger,
    mt: { translator: o.translator, meter: new LatencyMeter() },
    speech: new LiveSpeech(o.speech),
    ...(o.onDecode && { onDecode: o.onDecode }),
  };
  const hub: HubLink = new HubLink({
    url: `${base}${LIVE_NODE_PATH}`,
    token: o.token,
    register: { type: "register", node_id: o.nodeId, model: o.modelId, capacity: o.options.capacity },
    logger: o.logger,
    activeStreams: () => [...streams],
    onAssign: ({ session_id, path, mode }) => {
      o.logger.info({ session_id, mode }, "live: assigned");
      const url = `${base}${path}`;
      let run: Promise<void>;
      if (mode === "translate") {
        run = serveTranslateLink(url, o.token, deps, stopping.signal);
      } else {
        streams.add(session_id);
        hub.reportLoad();
        // the slot is free as soon as the link closes (the engine's states are then disposed)
        const linkClosed = () => {
          if (streams.delete(session_id)) hub.reportLoad();
        };
        run = serveSession(url, o.token, deps, stopping.signal, linkClosed).finally(linkClosed);
      }
      const tracked = run
        .catch((error: unknown) => o.logger.error({ session_id, err: String(error) }, "live: link failed"))
        .finally(() => sessions.delete(tracked));
      sessions.add(tracked);
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
