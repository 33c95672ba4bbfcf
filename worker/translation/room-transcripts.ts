import type { TranscriptLine } from "../../durable-objects/rooms/room-transcript.ts";
import { translationRoom } from "../../platform/stubs.ts";
import { quoted } from "../../protocol/quoted.ts";
import { translationLanguage } from "../../protocol/rooms.ts";
import { createNote } from "../content/notes.ts";
import { ApiError } from "../errors.ts";
import { NOTE_MAX_CHARS, type Note } from "../schemas/notes.ts";
import { renderRoomTranscript, type TranscriptFormat, transcriptNoteText } from "./room-transcript-export.ts";
import { isConversationId } from "./sessions.ts";

/**
 * A room's transcript for its host, the API key that created the room: read during the room and for
 * ROOM_TRANSCRIPT_TTL_SEC after it, downloaded in a format and language, deleted, or made into a note.
 * Anyone else (another key, a participant, a wrong id) gets the 404 an unknown conversation gets.
 */

const notFound = () => new ApiError("not_found", "no transcript of this conversation for this API key");

async function linesFor(env: Env, conversationId: string, keyId: string): Promise<TranscriptLine[]> {
  if (!isConversationId(conversationId)) throw notFound();
  const lines = await translationRoom(env, conversationId).transcript(keyId);
  if (!lines) throw notFound();
  return lines;
}

function languageOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const code = translationLanguage(value);
  if (!code) throw new ApiError("bad_request", `unsupported language ${quoted(value)}`);
  return code;
}

export async function downloadRoomTranscript(
  env: Env,
  conversationId: string,
  keyId: string,
  query: { format: TranscriptFormat; language?: string; bilingual: boolean },
): Promise<{ body: string; contentType: string; filename: string }> {
  const language = languageOf(query.language);
  if (query.bilingual && language === null) {
    throw new ApiError("bad_request", "bilingual needs a language: the original is shown with it");
  }
  const lines = await linesFor(env, conversationId, keyId);
  const { body, contentType } = renderRoomTranscript(conversationId, lines, query.format, {
    language,
    bilingual: query.bilingual,
  });
  const filename = `conversation-${conversationId.slice(0, 8)}${language ? `-${language}` : ""}.${query.format}`;
  return { body, contentType, filename };
}

export async function deleteRoomTranscript(env: Env, conversationId: string, keyId: string): Promise<void> {
  if (!isConversationId(conversationId)) throw notFound();
  if (!(await translationRoom(env, conversationId).deleteTranscript(keyId))) throw notFound();
}

/** A note of the transcript, in one language, for the content studio. */
export async function roomTranscriptNote(
  env: Env,
  conversationId: string,
  keyId: string,
  body: { language?: string; title?: string },
): Promise<Note> {
  const language = languageOf(body.language);
  const lines = await linesFor(env, conversationId, keyId);
  if (lines.length === 0) throw new ApiError("conflict", "the conversation has no finals yet");
  const content = transcriptNoteText(lines, language);
  if (content.length > NOTE_MAX_CHARS) {
    throw new ApiError(
      "payload_too_large",
      `the transcript is longer than a note may be (${NOTE_MAX_CHARS} characters)`,
    );
  }
  return createNote(env, keyId, {
    content,
    title: body.title ?? `Conversation ${conversationId.slice(0, 8)}`,
    ...(language ? { language } : {}),
  });
}
