import { z } from "zod";
import { normalizeLanguage } from "./languages.ts";
import { SynthesisFailedMessage, SynthesizedMessage, SynthesizeRequest } from "./live-speech.ts";

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
  /** The session reached LIVE_MAX_SESSION_SEC (so no client holds the gate or an engine slot for ever). */
  maxDuration: 4410,
  /** Refused at connect: the API key already holds its most live streams (LIVE_MAX_STREAMS_PER_KEY). */
  tooManyStreams: 4429,
} as const;

/** Node heartbeat on the hub socket; the hub answers PONG without waking (auto-response). */
export const LIVE_PING = "ping";
export const LIVE_PONG = "pong";
export const LIVE_PING_INTERVAL_MS = 5_000;
/** A node whose last ping is older than this no longer counts as connected. */
export const LIVE_NODE_STALE_MS = 3 * LIVE_PING_INTERVAL_MS;

/** Where a node holds its hub socket (node token auth). */
export const LIVE_NODE_PATH = "/internal/v1/live/node";
/**
 * Where a node dials in for one assigned stream (a /ws or single-device session, a room speaker, a
 * room's translate-only link): the stream's id and its secret, which only the assignment carries. The
 * path names no room: the hub knows where the stream lives.
 */
export const liveStreamPath = (streamId: string, secret: string): string =>
  `/internal/v1/live/streams/${encodeURIComponent(streamId)}/${encodeURIComponent(secret)}`;

/**
 * Live streams a node takes at once unless told otherwise (the node's VOXEDGE_LIVE_CAPACITY), and the
 * Worker's default LIVE_NODE_MAX_CAPACITY: what two cores carry through the decode gate (docs/native.md
 * "Capacity").
 */
export const DEFAULT_LIVE_CAPACITY = 4;

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

/** First message on the hub socket: `capacity` live streams the node's loaded engine takes (0 = none). */
export const NodeRegister = z.object({
  type: z.literal("register"),
  node_id: z.string().min(1).max(128),
  model: z.string().max(128),
  capacity: z.number().int().min(0).max(64),
});
export type NodeRegister = z.infer<typeof NodeRegister>;
/**
 * The node's running streams (their session ids), sent whenever the set changes and after every
 * `stream` assignment: `assigned` counts the stream assignments received on this socket, so the hub
 * can tell which of its own assignments the report already includes (one in flight still takes a slot).
 */
export const NodeLoad = z.object({
  type: z.literal("load"),
  streams: z.array(z.string().max(128)).max(1024),
  assigned: z.number().int().min(0),
});
export type NodeLoad = z.infer<typeof NodeLoad>;
export const NodeToHub = z.discriminatedUnion("type", [NodeRegister, NodeLoad]);

/** Internal paths a node may be told to dial (relative to the Worker it already talks to). */
const INTERNAL_PATH = /^\/internal\/v1\/[A-Za-z0-9/_.%-]+$/;

/**
 * The hub hands the node work: dial `path` (NODE_TOKEN). `stream` runs a streaming engine on the link
 * (the other side sends `config` before any audio) and takes one of the node's capacity slots;
 * `translate` only answers `translate` requests (no engine, no slot).
 */
export const AssignMessage = z.object({
  type: z.literal("assign"),
  session_id: z.string().min(1).max(128),
  path: z.string().max(512).regex(INTERNAL_PATH, "an internal path"),
  mode: z.enum(["stream", "translate"]).default("stream"),
});
export type AssignMessage = z.input<typeof AssignMessage>;
export const HubToNode = z.discriminatedUnion("type", [AssignMessage]);

// ---- node ↔ stream link (one socket per stream; binary frames are the client's PCM, relayed as is) ----

/** Languages the engine can be told to translate into at once (distinct listener languages). */
export const MAX_TARGETS = 16;
const code = z.string().min(2).max(16);

/**
 * The stream's settings. `language` (a code or "auto") applies from the next utterance on, so the
 * running one is finished as it began; `targets` (finals) and `interim_target` (interims, when the
 * backend is fast enough) apply to the next message sent. Omitted targets: transcription only.
 */
export const StreamConfig = z.object({
  type: z.literal("config"),
  language: z.string().max(64),
  targets: z.array(code).max(MAX_TARGETS).optional(),
  interim_target: code.nullable().optional(),
});
export type StreamConfig = z.infer<typeof StreamConfig>;
/** Texts to translate into `to` (a room's history for a late joiner); answered with `translated`. */
export const TranslateBatch = z.object({
  type: z.literal("translate"),
  request_id: z.string().min(1).max(64),
  to: code,
  items: z
    .array(z.object({ id: z.string().min(1).max(64), text: z.string().max(4_000), from: code }))
    .max(50),
});
export type TranslateBatch = z.infer<typeof TranslateBatch>;
/**
 * End the utterance now, as the endpointing would (a realtime client's manual commit); the stream goes
 * on. Answered with `committed` once its final (if the audio held speech) is out.
 */
export const CommitMessage = z.object({ type: z.literal("commit") });
/** What a session or room sends the node on a link. */
export const SessionToNode = z.discriminatedUnion("type", [
  StreamConfig,
  EndMessage,
  CommitMessage,
  TranslateBatch,
  SynthesizeRequest,
]);
export type SessionToNode = z.infer<typeof SessionToNode>;

const translated = {
  /** Target language → text, for every target translated (interims: at most the interim target). */
  translations: z.record(z.string(), z.string()).default({}),
  /** Targets whose translation failed; the original stands in for them. */
  translation_errors: z.array(z.string()).default([]),
};
/** An interim from the engine: the /ws interim plus its utterance and optional translation. */
export const NodeInterim = InterimMessage.extend({
  utterance_id: z.string().min(1).max(64),
  language: z.string().optional(),
  ...translated,
});
export type NodeInterim = z.input<typeof NodeInterim>;
/** A final from the engine, translated once into each target language. */
export const NodeFinal = FinalMessage.extend({ utterance_id: z.string().min(1).max(64), ...translated });
export type NodeFinal = z.input<typeof NodeFinal>;
/** The engine's answer to `end`: every final is out, the session may close with 1000. */
export const EndedMessage = z.object({ type: z.literal("ended") });
/** The engine's answer to `commit`: the utterance's final, if any, went out before it. */
export const CommittedMessage = z.object({ type: z.literal("committed") });
/** The answer to a `translate` request; `text` is null where that item failed. */
export const TranslatedBatch = z.object({
  type: z.literal("translated"),
  request_id: z.string(),
  items: z.array(z.object({ id: z.string(), text: z.string().nullable() })),
});
export type TranslatedBatch = z.infer<typeof TranslatedBatch>;
export const NodeToSession = z.discriminatedUnion("type", [
  NodeInterim,
  NodeFinal,
  ErrorMessage,
  EndedMessage,
  CommittedMessage,
  TranslatedBatch,
  SynthesizedMessage,
  SynthesisFailedMessage,
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
