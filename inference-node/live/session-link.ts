import WebSocket from "ws";
import type { WhisperModel } from "../../native/index.ts";
import { type NodeToSession, parseLiveMessage, SessionToNode } from "../../protocol/live.ts";
import type { Logger } from "../logger.ts";
import type { LiveOptions } from "./options.ts";
import { pcm16ToFloat32 } from "./pcm.ts";
import { type DecodeStat, LiveTranscriber } from "./transcriber.ts";

export interface SessionDeps {
  model: WhisperModel;
  options: LiveOptions;
  logger: Logger;
  /** Sees every decode's cost (benchmarks, debug logs). */
  onDecode?: (stat: DecodeStat) => void;
}

/**
 * Dials into an assigned session (`url`, NODE_TOKEN) and runs a streaming engine on it until the
 * session closes or `signal` aborts. Two whisper states per session: interims and finals never wait
 * for each other's state. Resolves once both states are freed.
 */
export async function serveSession(
  url: string,
  token: string,
  deps: SessionDeps,
  signal: AbortSignal,
): Promise<void> {
  const [interim, final] = await Promise.all([deps.model.createStream(), deps.model.createStream()]);
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  const send = (message: NodeToSession) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  const transcriber = new LiveTranscriber(
    { interim, final },
    { send, ...(deps.onDecode && { decoded: deps.onDecode }) },
    deps.options,
  );
  const stop = () => ws.close(1001, "node stopping");
  signal.addEventListener("abort", stop, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on("message", (data: Buffer, isBinary) => {
        if (isBinary) return transcriber.push(pcm16ToFloat32(data));
        const parsed = parseLiveMessage(SessionToNode, data.toString("utf8"));
        if (!parsed.ok) return deps.logger.warn({ url, error: parsed.error }, "live: bad session message");
        if (parsed.value.type === "config") return transcriber.setLanguage(parsed.value.language);
        transcriber.flush().then(
          () => send({ type: "ended" }),
          (error: unknown) => deps.logger.error({ url, err: String(error) }, "live: flush failed"),
        );
      });
      ws.once("close", () => resolve());
      ws.on("error", reject);
    });
  } finally {
    signal.removeEventListener("abort", stop);
    transcriber.close();
    await Promise.all([interim.dispose(), final.dispose()]);
  }
}
