import WebSocket from "ws";
import type { WhisperModel } from "../../native/index.ts";
import { type NodeToSession, parseLiveMessage, SessionToNode } from "../../protocol/live.ts";
import type { Logger } from "../logger.ts";
import type { VoiceActivity } from "../vad/voice-activity.ts";
import type { DecodeGate } from "./decode-gate.ts";
import type { LiveSpeech } from "./live-speech.ts";
import type { LiveOptions } from "./options.ts";
import { pcm16ToFloat32 } from "./pcm.ts";
import { type LiveMt, StreamTranslation, translateBatch } from "./stream-translation.ts";
import { type DecodeStat, LiveTranscriber } from "./transcriber.ts";

export interface SessionDeps {
  model: WhisperModel;
  options: LiveOptions;
  /** The node's voice activity detector (one Silero session for every stream). */
  vad: VoiceActivity;
  /** The node's live decode gate: every stream's decodes take turns through it. */
  gate: DecodeGate;
  logger: Logger;
  /** The node's translator (null: none configured) and its call-time meter. */
  mt: LiveMt;
  /** Speaks a room's finals on request (`synthesize`), one per language. */
  speech: LiveSpeech;
  /** Sees every decode's cost (benchmarks, debug logs). */
  onDecode?: (stat: DecodeStat) => void;
}

type Send = (message: NodeToSession) => void;
type Handler = (data: Buffer, isBinary: boolean) => void;

/**
 * How long a link waits, once the close handshake has begun, for the server to drop the connection
 * before dropping it itself. The session is over when its close frame arrives, but ws would wait up to
 * 30 s for the TCP close, holding the stream's engine (two whisper states) all that time; through
 * wrangler dev the connection stayed open ~10 s after a client left, so a run of short sessions piled
 * up engines (the soak bench saw the node grow past 2.5 GB).
 */
const LINK_CLOSE_TIMEOUT_MS = 250;

/** Dials `url` with the node token and runs the handler `open` makes on every frame until the socket closes. */
async function runLink(
  url: string,
  token: string,
  signal: AbortSignal,
  open: (send: Send) => Handler,
  onClose?: () => void,
): Promise<void> {
  // ws 8.23 takes closeTimeout; @types/ws (8.18, the latest) does not declare it yet.
  const options: WebSocket.ClientOptions & { closeTimeout: number } = {
    headers: { authorization: `Bearer ${token}` },
    closeTimeout: LINK_CLOSE_TIMEOUT_MS,
  };
  const ws = new WebSocket(url, options);
  const send: Send = (message) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  };
  const handle = open(send);
  const stop = () => ws.close(1001, "node stopping");
  signal.addEventListener("abort", stop, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on("message", (data: Buffer, isBinary) => handle(data, isBinary));
      ws.once("close", () => {
        onClose?.();
        resolve();
      });
      ws.on("error", reject);
    });
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/**
 * Dials into an assigned stream (a /ws or single-device session, or one speaker of a room) and runs
 * a streaming engine on it until the link closes or `signal` aborts. Two whisper states per stream:
 * interims and finals never wait for each other's state. Finals (and interims, when the backend is
 * fast) are translated into the targets the other side configured. Resolves once both states are freed.
 */
export async function serveSession(
  url: string,
  token: string,
  deps: SessionDeps,
  signal: AbortSignal,
  onClose?: () => void,
): Promise<void> {
  const [interim, final] = await Promise.all([deps.model.createStream(), deps.model.createStream()]);
  const closers: (() => void)[] = [];
  try {
    await runLink(
      url,
      token,
      signal,
      (send) => {
        const out = new StreamTranslation(send, deps.mt, deps.logger);
        const engine = new LiveTranscriber(
          { interim, final },
          { send: (m) => out.push(m), ...(deps.onDecode && { decoded: deps.onDecode }) },
          deps.options,
          "auto",
          deps.vad,
          deps.gate,
        );
        closers.push(
          () => engine.close(),
          () => out.close(),
        );
        return (data, isBinary) => {
          if (isBinary) return engine.push(pcm16ToFloat32(data));
          const parsed = parseLiveMessage(SessionToNode, data.toString("utf8"));
          if (!parsed.ok) return deps.logger.warn({ url, error: parsed.error }, "live: bad session message");
          const message = parsed.value;
          if (message.type === "config") {
            engine.setLanguage(message.language);
            out.configure(message.targets ?? [], message.interim_target ?? null);
          } else if (message.type === "translate") {
            void translateBatch(deps.mt, message).then(send);
          } else if (message.type === "synthesize") {
            void deps.speech.answer(message).then(send);
          } else if (message.type === "commit") {
            engine
              .flush()
              .then(() => out.drain())
              .then(
                () => send({ type: "committed" }),
                (error: unknown) => deps.logger.error({ url, err: String(error) }, "live: commit failed"),
              );
          } else {
            engine
              .flush()
              .then(() => out.drain())
              .then(
                () => send({ type: "ended" }),
                (error: unknown) => deps.logger.error({ url, err: String(error) }, "live: flush failed"),
              );
          }
        };
      },
      onClose,
    );
  } finally {
    for (const close of closers) close();
    await Promise.all([interim.dispose(), final.dispose()]);
  }
}

/**
 * Dials into a translate-only link (a room translating its history for a late joiner): no engine,
 * no capacity slot; answers each `translate` request until the link closes.
 */
export async function serveTranslateLink(
  url: string,
  token: string,
  deps: Pick<SessionDeps, "mt" | "logger">,
  signal: AbortSignal,
): Promise<void> {
  await runLink(url, token, signal, (send) => (data, isBinary) => {
    const parsed = isBinary ? null : parseLiveMessage(SessionToNode, data.toString("utf8"));
    if (parsed?.ok && parsed.value.type === "translate")
      void translateBatch(deps.mt, parsed.value).then(send);
    else deps.logger.warn({ url }, "live: a translate link takes translate requests only");
  });
}
