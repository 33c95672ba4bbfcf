import type { JoinRole } from "./room-connection.ts";

/**
 * What this tab keeps about a room in sessionStorage (a reload keeps it, another tab or a closed one
 * does not): its resume token (the secret of its last welcome, to reconnect into the same place), the
 * language, name and role chosen, whether it was in, whether it reads aloud.
 */
const key = (
  conversationId: string,
  item: "resume" | "language" | "joined" | "timeline" | "name" | "role" | "speak",
) => `voxedge.room.${conversationId}.${item}`;

function read(name: string): string | null {
  try {
    return sessionStorage.getItem(name);
  } catch {
    return null;
  }
}

function write(name: string, value: string | null): void {
  try {
    if (value === null) sessionStorage.removeItem(name);
    else sessionStorage.setItem(name, value);
  } catch {
    // storage refused (private mode quota): the room works, a reload just starts afresh
  }
}

export const roomStorage = {
  resumeToken: (conversationId: string) => read(key(conversationId, "resume")),
  setResumeToken: (conversationId: string, token: string | null) =>
    write(key(conversationId, "resume"), token),
  language: (conversationId: string) => read(key(conversationId, "language")),
  setLanguage: (conversationId: string, language: string) => write(key(conversationId, "language"), language),
  wasJoined: (conversationId: string) => read(key(conversationId, "joined")) === "1",
  setJoined: (conversationId: string, joined: boolean) =>
    write(key(conversationId, "joined"), joined ? "1" : null),
  timelineKey: (conversationId: string) => key(conversationId, "timeline"),
  name: (conversationId: string) => read(key(conversationId, "name")) ?? "",
  setName: (conversationId: string, name: string) => write(key(conversationId, "name"), name || null),
  role: (conversationId: string): JoinRole =>
    read(key(conversationId, "role")) === "listener" ? "listener" : "speaker",
  setRole: (conversationId: string, role: JoinRole) => write(key(conversationId, "role"), role),
  readAloud: (conversationId: string) => read(key(conversationId, "speak")) === "1",
  setReadAloud: (conversationId: string, on: boolean) => write(key(conversationId, "speak"), on ? "1" : null),
};

/**
 * The language a participant starts with: the one chosen before in this tab, else the browser's first
 * language the deployment supports, else the session's other language (the initiator's target).
 *
 * @example defaultRoomLanguage({ remembered: null, browser: ["es-ES", "en"], supported: ["en", "es"], sessionTarget: "vi" }) // "es"
 */
export function defaultRoomLanguage(input: {
  remembered: string | null;
  browser: readonly string[];
  supported: readonly string[];
  sessionTarget: string;
}): string {
  if (input.remembered && input.supported.includes(input.remembered)) return input.remembered;
  for (const tag of input.browser) {
    const base = tag.toLowerCase().split("-")[0] ?? "";
    if (input.supported.includes(base)) return base;
  }
  return input.sessionTarget;
}
