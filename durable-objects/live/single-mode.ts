/**
 * The single-device translation mode of a LiveSession (`/api/v1/ws/single`): what its client's frames
 * mean, and how the engine's translated results become the spec's `{is_final, original, translation}`
 * messages. Decided without side effects; the session object carries the actions out.
 */
import {
  liveLanguage,
  type NodeFinal,
  type NodeInterim,
  parseLiveMessage,
  type ServerMessage,
  type StreamConfig,
} from "../../protocol/live.ts";
import { SingleClientMessage, type SingleTranscript, translationLanguage } from "../../protocol/rooms.ts";
import { NoticeCooldown } from "../notice-cooldown.ts";
import { type ClientAction, checkControlLength, readAudioFrame } from "./client-input.ts";
import {
  actionStep,
  type ClientDialect,
  type DialectStep,
  type EngineMessage,
  readyMessage,
} from "./dialect.ts";

/** The stream settings a single-device client chose (`translate_language` null until its first `config`). */
export interface SingleState {
  language: string;
  translate_language: string | null;
}

/** The single-device dialect: the spec's `config`/`end` and binary audio in, `transcript` messages out. */
export class SingleDialect implements ClientDialect {
  readonly waitsForEngine = true;
  /** A client streaming before its first config is told so once per cooldown, as rooms tell refusals. */
  private readonly unconfigured = new NoticeCooldown<"unconfigured">();

  constructor(
    private current: SingleState,
    private readonly now: () => number = Date.now,
  ) {}

  read(frame: string | ArrayBuffer): DialectStep {
    const action = readSingleFrame(frame);
    if (action.kind === "control" && action.message.type === "config") {
      this.current = {
        language: action.message.language,
        translate_language: action.message.interim_target ?? this.current.translate_language,
      };
    }
    return actionStep(
      action,
      (message) => this.error(message),
      (data) => (this.current.translate_language ? { audio: data } : this.dropUnconfigured()),
    );
  }

  /** Drops a frame sent before the first config, saying so once per NOTICE_COOLDOWN_MS. */
  private dropUnconfigured(): DialectStep {
    if (!this.unconfigured.mayTell("unconfigured", this.now())) return {};
    return { toClient: [this.error("send a config message before audio: frame dropped")] };
  }

  paired(sessionId: string): DialectStep {
    const { language, translate_language } = this.current;
    return {
      ...(translate_language && { toNode: [singleStreamConfig({ language, translate_language })] }),
      toClient: [readyMessage(sessionId)],
    };
  }

  fromEngine(message: EngineMessage): DialectStep {
    if (message.type === "error") return { toClient: [this.error(message.message)] };
    if (message.type === "committed") return {};
    return { toClient: [singleTranscript(message, this.current.translate_language ?? "")] };
  }

  error(message: string): ServerMessage {
    return { type: "error", message };
  }

  state(): SingleState {
    return this.current;
  }
}

/** The stream settings a single-device client chose. */
export interface SingleSettings {
  /** Spoken language: a code, or "auto". */
  language: string;
  /** Language to translate into. */
  translate_language: string;
}

/** The engine's config for these settings: finals and interims into the one target. */
export function singleStreamConfig(settings: SingleSettings): StreamConfig {
  const target = settings.translate_language;
  return { type: "config", language: settings.language, targets: [target], interim_target: target };
}

/**
 * Classifies one frame of a single-device client.
 *
 * @example
 * readSingleFrame('{"type":"config","language":"en","translate_language":"Spanish"}');
 * // { kind: "control", message: { type: "config", language: "en", targets: ["es"], interim_target: "es" } }
 */
export function readSingleFrame(frame: string | ArrayBuffer): ClientAction {
  if (typeof frame !== "string") return readAudioFrame(frame);
  const tooLong = checkControlLength(frame);
  if (tooLong) return tooLong;
  const parsed = parseLiveMessage(SingleClientMessage, frame);
  if (!parsed.ok) {
    return {
      kind: "error",
      message: `${parsed.error} (text frames are JSON control messages: config or end; audio goes in binary frames)`,
    };
  }
  if (parsed.value.type === "end") return { kind: "control", message: parsed.value };
  const language = liveLanguage(parsed.value.language);
  if (!language) return { kind: "error", message: `unsupported language: ${parsed.value.language}` };
  const target = translationLanguage(parsed.value.translate_language);
  if (!target) {
    return { kind: "error", message: `unsupported translate_language: ${parsed.value.translate_language}` };
  }
  return { kind: "control", message: singleStreamConfig({ language, translate_language: target }) };
}

/**
 * The client's message for one engine result. The target is the one the engine translated into
 * (the config in force when it made the message); a failed translation carries the original text
 * and `translation_error: true`.
 *
 * @example
 * singleTranscript({ type: "final", text: "Hello.", language: "en", translations: { es: "Hola." }, ... }, "es");
 * // { type: "transcript", is_final: true, original: "Hello.", translation: "Hola.", translation_language: "es", ... }
 */
export function singleTranscript(
  message: (NodeFinal | NodeInterim) & { translations: Record<string, string>; translation_errors: string[] },
  currentTarget: string,
): SingleTranscript {
  const isFinal = message.type === "final";
  const language = message.language ?? "";
  const target = Object.keys(message.translations)[0] ?? message.translation_errors[0] ?? currentTarget;
  const failed = message.translation_errors.includes(target);
  let translation = message.translations[target];
  if (translation === undefined) translation = language === target || (failed && isFinal) ? message.text : "";
  return {
    type: "transcript",
    is_final: isFinal,
    original: message.text,
    translation,
    translation_language: target,
    ...(failed && { translation_error: true }),
    language,
    utterance_id: message.utterance_id,
    start: message.start,
    end: message.end,
  };
}
