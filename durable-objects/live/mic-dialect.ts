/**
 * The live microphone's dialect (/ws): binary PCM16 at 16 kHz, `config` and `end` control messages;
 * `ready`, `interim`, `final` and `error` back (docs/api.md "Live transcription").
 */
import type { ServerMessage } from "../../protocol/live.ts";
import { readClientFrame } from "./client-input.ts";
import {
  actionStep,
  type ClientDialect,
  type DialectStep,
  type EngineMessage,
  readyMessage,
} from "./dialect.ts";

export interface MicState {
  /** Current language choice (code or "auto"); the engine gets it as `config` when they pair. */
  language: string;
}

export class MicDialect implements ClientDialect {
  readonly waitsForEngine = false;

  constructor(private current: MicState) {}

  read(frame: string | ArrayBuffer): DialectStep {
    const action = readClientFrame(frame);
    if (action.kind === "control" && action.message.type === "config") {
      this.current = { language: action.message.language };
    }
    return actionStep(action, (message) => this.error(message));
  }

  paired(sessionId: string): DialectStep {
    return {
      toNode: [{ type: "config", language: this.current.language }],
      toClient: [readyMessage(sessionId)],
    };
  }

  fromEngine(message: EngineMessage): DialectStep {
    if (message.type === "error") return { toClient: [this.error(message.message)] };
    if (message.type === "interim") {
      const { text, start, end } = message;
      return { toClient: [{ type: "interim", text, start, end } satisfies ServerMessage] };
    }
    if (message.type === "final") {
      const { text, start, end, language } = message;
      return { toClient: [{ type: "final", text, start, end, language } satisfies ServerMessage] };
    }
    return {};
  }

  error(message: string): ServerMessage {
    return { type: "error", message };
  }

  state(): MicState {
    return this.current;
  }
}
