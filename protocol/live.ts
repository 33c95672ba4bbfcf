import { z } from "zod";
import { normalizeLanguage } from "./languages.ts";

/**
 * The live-microphone wire protocol (/ws), shared by the Worker, the LiveHub and LiveSession Durable
 * Objects, the inference node's streaming engine and every test client. docs/api.md describes it for
 * clients; the internal half (node ↔ hub, node ↔ session) is below the public one.
 *
 * Public: the server sends `ready` first; the client then sends binary PCM16 LE 16 kHz mono frames
 * (at most LIVE_MAX_FRAME_BYTES each) and JSON control messages; the server answers with `interim`,
 * `final` and `error` messages and closes with 1000 after an `end`.
 */

export const LIVE_SAMPLE_RATE = 16_000;
export const LIVE_FORMAT = "pcm_s16le";
/** Largest binary frame a client may send; a larger one closes the socket with 1009. */
export const LIVE_MAX_FRAME_BYTES = 64 * 1024;

/** Close codes the live endpoints use (RFC 6455). */
export const LiveClose = {
  /** `end` handled, every final sent. */
  normal: 1000,
  /** The client sent nothing for the idle timeout (vanished without closing). */
  idle: 1001,
  /** A binary frame over LIVE_MAX_FRAME_BYTES. */
  tooBig: 1009,
  /** The streaming engine failed or went away mid-session. */
  engineLost: 1011,
  /** Refused at connect: another session holds the gate, or no engine is connected. */
  tryAgainLater: 1013,
} as const;

/** Node heartbeat on the hub socket; the hub answers PONG without waking (auto-response). */
export const LIVE_PING = "ping";
export const LIVE_PONG = "pong";
export const LIVE_PING_INTERVAL_MS = 5_000;
/** A node whose last ping is older than this no longer counts as connected. */
export const LIVE_NODE_STALE_MS = 3 * LIVE_PING_INTERVAL_MS;

/** Where a node holds its hub socket, and where it dials into an assigned session (NODE_TOKEN auth). */
export const LIVE_NODE_PATH = "/internal/v1/live/node";
export const liveSessionPath = (sessionId: string): string =>
  `/internal/v1/live/sessions/${encodeURIComponent(sessionId)}`;

/**
 * A request language as the engine takes it: a whisper code, or "auto" for omitted/`auto`; null when
 * whisper does not know it.
 *
 * @example liveLanguage("en-US") // "en"
 */
export function liveLanguage(input: string | null | undefined): string | null {
  const choice = normalizeLanguage(input);
  if (choice.kind === "unsupported") return null;
  return choice.kind === "auto" ? "auto" : choice.code;
}

// ---- client → server (text frames) ----

export const ConfigMessage = z.object({ type: z.literal("config"), language: z.string().max(64) });
export const EndMessage = z.object({ type: z.literal("end") });
/** JSON control messages a client may send between its binary audio frames. */
export const ClientControl = z.discriminatedUnion("type", [ConfigMessage, EndMessage]);
export type ClientControl = z.infer<typeof ClientControl>;

// ---- server → client ----

export const ReadyMessage = z.object({
  type: z.literal("ready"),
  session_id: z.string(),
  sample_rate: z.literal(LIVE_SAMPLE_RATE),
  format: z.literal(LIVE_FORMAT),
});
/** Settled text of the utterance so far (it only grows); times in seconds of session audio. */
export const InterimMessage = z.object({
  type: z.literal("interim"),
  text: z.string(),
  start: z.number(),
  end: z.number(),
});
/** One finished utterance, post-processed; `language` is the code it was decoded in. */
export const FinalMessage = z.object({
  type: z.literal("final"),
  text: z.string(),
  start: z.number(),
  end: z.number(),
  language: z.string(),
});
export const ErrorMessage = z.object({ type: z.literal("error"), message: z.string() });
/** Everything the server sends a client, as JSON text frames. */
export const ServerMessage = z.discriminatedUnion("type", [
  ReadyMessage,
  InterimMessage,
  FinalMessage,
  ErrorMessage,
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
export type InterimMessage = z.infer<typeof InterimMessage>;
export type FinalMessage = z.infer<typeof FinalMessage>;

// ---- node ↔ hub (the node's one long-lived socket) ----

/** First message on the hub socket: `capacity` live sessions the node's loaded engine takes (0 = none). */
export const NodeRegister = z.object({
  type: z.literal("register"),
  node_id: z.string().min(1).max(128),
  model: z.string().max(128),
  capacity: z.number().int().min(0).max(64),
});
export type NodeRegister = z.infer<typeof NodeRegister>;
export const NodeToHub = z.discriminatedUnion("type", [NodeRegister]);

/**
 * The hub hands the node a session: dial liveSessionPath(session_id). The session then sends the
 * client's `config` before any audio.
 */
export const AssignMessage = z.object({ type: z.literal("assign"), session_id: z.string().min(1).max(128) });
export type AssignMessage = z.infer<typeof AssignMessage>;
export const HubToNode = z.discriminatedUnion("type", [AssignMessage]);

// ---- node ↔ session (one socket per session; binary frames are the client's, relayed as is) ----

/** Control the session relays to the node; `config.language` is already normalised (code or "auto"). */
export const SessionToNode = ClientControl;
export type SessionToNode = ClientControl;
/** The engine's answer to `end`: every final is out, the session may close with 1000. */
export const EndedMessage = z.object({ type: z.literal("ended") });
export const NodeToSession = z.discriminatedUnion("type", [
  InterimMessage,
  FinalMessage,
  ErrorMessage,
  EndedMessage,
]);
export type NodeToSession = z.infer<typeof NodeToSession>;

/**
 * Parses one JSON text frame against a schema; the error is a short message fit to send back.
 *
 * @example
 * const parsed = parseLiveMessage(ClientControl, '{"type":"end"}');
 * if (parsed.ok) handle(parsed.value); else send({ type: "error", message: parsed.error });
 */
export function parseLiveMessage<T extends z.ZodType>(
  schema: T,
  text: string,
): { ok: true; value: z.infer<T> } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "control message is not valid JSON" };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
  return { ok: false, error: `invalid control message${where}: ${issue?.message ?? "unknown shape"}` };
}
