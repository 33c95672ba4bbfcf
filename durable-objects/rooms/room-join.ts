import type { LanguageCode } from "../../protocol/languages.ts";
import {
  CLIENT_ID,
  displayName,
  ParticipantRole,
  RESUME_TOKEN,
  RoomClose,
  translationLanguage,
} from "../../protocol/rooms.ts";

/** What the Worker tells the room on a participant's upgrade, or on an engine's. */
export type RoomJoin =
  | {
      role: "client";
      language: string | null;
      client_id: string | null;
      resume: string | null;
      /** `speaker` or `listener` (absent: speaker). */
      as: string | null;
      name: string | null;
      /** `true` or `false`: spoken translations (absent: off, or as before on a reconnect). */
      speak: string | null;
    }
  | { role: "stream"; stream_id: string };

/**
 * The internal upgrade request for one side of a room.
 *
 * @example await translationRoom(env, id).fetch(roomRequest(request, { role: "stream", stream_id }));
 */
export function roomRequest(original: Request, join: RoomJoin): Request {
  const url = new URL(`https://translation-room/${join.role}`);
  for (const [name, value] of Object.entries(join)) if (value !== null) url.searchParams.set(name, value);
  return new Request(url, { headers: original.headers });
}

/** A participant's checked join: its language, the client id it asks for, its resume token, role, name. */
export interface ParticipantAsk {
  language: LanguageCode;
  asked: string | null;
  resume: string | null;
  role: ParticipantRole;
  name: string | null;
  /** Null: not given (a new participant: off; a reconnect keeps its setting). */
  speak: boolean | null;
}

/** Why a participant's join is refused: the close code and reason its socket gets. */
export interface JoinRefusal {
  code: number;
  reason: string;
}

/** Checks a participant's join query (RoomJoin's client fields) before the room reads anything. */
export function readParticipantAsk(params: URLSearchParams): ParticipantAsk | JoinRefusal {
  const language = translationLanguage(params.get("language"));
  if (!language) {
    return {
      code: RoomClose.badRequest,
      reason: `unsupported or missing language: ${params.get("language") ?? "none"}`,
    };
  }
  const asked = params.get("client_id");
  if (asked !== null && !CLIENT_ID.test(asked)) {
    return { code: RoomClose.badRequest, reason: "client_id must be 8-64 letters, digits, - or _" };
  }
  const resume = params.get("resume");
  if (resume !== null && !RESUME_TOKEN.test(resume)) {
    return {
      code: RoomClose.badRequest,
      reason: "resume must be the resume_token of a welcome (43 base64url characters)",
    };
  }
  const role = ParticipantRole.safeParse(params.get("as") ?? "speaker");
  if (!role.success) return { code: RoomClose.badRequest, reason: "role must be speaker or listener" };
  const name = displayName(params.get("name"));
  if (!name.ok) return { code: RoomClose.badRequest, reason: name.reason };
  const speak = params.get("speak");
  if (speak !== null && speak !== "true" && speak !== "false")
    return { code: RoomClose.badRequest, reason: "speak must be true or false" };
  return {
    language,
    asked,
    resume,
    role: role.data,
    name: name.name,
    speak: speak === null ? null : speak === "true",
  };
}
