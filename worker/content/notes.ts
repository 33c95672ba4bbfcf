import { and, count, desc, eq } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { notes } from "../../platform/schema.ts";
import { readTask } from "../../platform/task-store.ts";
import { detectLanguage } from "../../protocol/language-detect.ts";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { quoted } from "../../protocol/quoted.ts";
import { splitSentences } from "../../protocol/sentences.ts";
import type { CreateNoteRequest, Note, NotePage, NoteSummary } from "../schemas/notes.ts";
import { ContentApiError } from "./errors.ts";

/** Notes: what content generation starts from. Each belongs to the API key that made it. */

export type NoteRow = typeof notes.$inferSelect;

const EXCERPT_CHARS = 200;
const TITLE_WORDS = 10;

/**
 * A title for text that came without one: its first line or sentence, cut to ten words.
 *
 * @example deriveTitle("Photosynthesis. Plants turn light into sugar.") // "Photosynthesis"
 */
export function deriveTitle(text: string): string {
  const firstLine = text.trim().split("\n", 1)[0] ?? "";
  const sentence = splitSentences(firstLine.replace(/^#+\s*/, ""))[0] ?? "";
  const words = sentence
    .replace(/[.!?。]+$/, "")
    .split(/\s+/)
    .filter(Boolean);
  const title = words.slice(0, TITLE_WORDS).join(" ");
  return (words.length > TITLE_WORDS ? `${title}…` : title) || "Untitled note";
}

function languageOf(given: string | undefined, text: string): string | null {
  if (given === undefined) return detectLanguage(text);
  const choice = normalizeLanguage(given);
  if (choice.kind === "unsupported") {
    throw new ContentApiError(
      "bad_request",
      "unsupported_language",
      `language ${quoted(given)} is not supported`,
    );
  }
  return choice.kind === "language" ? choice.code : detectLanguage(text);
}

/** A result's language name (`Vietnamese`) or code as a short code; null when unknown. */
function codeOf(language: string): string | null {
  const choice = normalizeLanguage(language);
  return choice.kind === "language" ? choice.code : null;
}

/** The parts of a new note, from typed text or from a finished transcription of the same key. */
async function noteSource(env: Env, ownerKeyId: string, request: CreateNoteRequest) {
  if ("content" in request) {
    return {
      title: request.title ?? deriveTitle(request.content),
      content: request.content,
      language: languageOf(request.language, request.content),
      duration_sec: null,
      source_task_id: null,
    };
  }
  const task = await readTask(env, request.transcription_task_id);
  if (!task || task.owner_key_id !== ownerKeyId || task.kind !== "transcribe") {
    throw new ContentApiError(
      "not_found",
      "transcription_not_found",
      "no such transcription for this API key",
    );
  }
  if (task.status !== "done" || !task.result) {
    throw new ContentApiError(
      "conflict",
      "transcription_not_finished",
      `transcription ${task.task_id} is ${task.status}; a note can be made once it is done`,
    );
  }
  const text = task.result.text.trim();
  if (!text) {
    throw new ContentApiError(
      "bad_request",
      "transcription_empty",
      "the transcription has no text to make a note of",
    );
  }
  return {
    title: request.title ?? deriveTitle(text),
    content: text,
    language: codeOf(task.result.language) ?? detectLanguage(text),
    duration_sec: task.result.duration_sec,
    source_task_id: task.task_id,
  };
}

/** What a new note is made of. */
export type NoteSource = Pick<NoteRow, "title" | "content" | "language" | "duration_sec" | "source_task_id">;

/** Creates a note for `ownerKeyId`. */
export async function createNote(env: Env, ownerKeyId: string, request: CreateNoteRequest): Promise<Note> {
  return toNote(
    await insertNote(env, ownerKeyId, crypto.randomUUID(), await noteSource(env, ownerKeyId, request)),
  );
}

/**
 * Stores a note of `ownerKeyId` under `id`; a note already stored under that id is kept as it is, so a
 * caller that derives the id from what made the note (a task) may call again without a second note.
 */
export async function insertNote(
  env: Env,
  ownerKeyId: string,
  id: string,
  source: NoteSource,
): Promise<NoteRow> {
  const now = Date.now();
  const row: NoteRow = {
    id,
    owner_key_id: ownerKeyId,
    created_at: now,
    updated_at: now,
    published_at: null,
    publisher_name: null,
    ...source,
  };
  await db(env).insert(notes).values(row).onConflictDoNothing({ target: notes.id });
  return row;
}

/** A note of this key, as stored; null for an unknown note or another key's. */
export async function findOwnNote(env: Env, ownerKeyId: string, noteId: string): Promise<NoteRow | null> {
  const row = await db(env)
    .select()
    .from(notes)
    .where(and(eq(notes.id, noteId), eq(notes.owner_key_id, ownerKeyId)))
    .get();
  return row ?? null;
}

export async function readNote(env: Env, ownerKeyId: string, noteId: string): Promise<Note> {
  const row = await findOwnNote(env, ownerKeyId, noteId);
  if (!row) throw new ContentApiError("not_found", "note_not_found", "no such note for this API key");
  return toNote(row);
}

/** Deletes a note; tasks already made from it keep their snapshot and finish. */
export async function deleteNote(env: Env, ownerKeyId: string, noteId: string): Promise<void> {
  const deleted = await db(env)
    .delete(notes)
    .where(and(eq(notes.id, noteId), eq(notes.owner_key_id, ownerKeyId)))
    .returning({ id: notes.id });
  if (deleted.length === 0)
    throw new ContentApiError("not_found", "note_not_found", "no such note for this API key");
}

/** A page of the key's notes, newest first, with excerpts instead of the whole text. */
export async function listNotes(
  env: Env,
  ownerKeyId: string,
  page: { limit: number; skip: number },
): Promise<NotePage> {
  const store = db(env);
  const mine = eq(notes.owner_key_id, ownerKeyId);
  const [rows, totals] = await store.batch([
    store
      .select()
      .from(notes)
      .where(mine)
      .orderBy(desc(notes.created_at), desc(notes.id))
      .limit(page.limit)
      .offset(page.skip),
    store.select({ n: count() }).from(notes).where(mine),
  ]);
  return { notes: rows.map(toSummary), total: totals[0]?.n ?? 0, ...page };
}

export function toNote(row: NoteRow): Note {
  return { ...common(row), content: row.content };
}

function toSummary(row: NoteRow): NoteSummary {
  return { ...common(row), excerpt: excerptOf(row.content) };
}

/** The first EXCERPT_CHARS characters of a note, marked when cut. */
export function excerptOf(content: string): string {
  return content.length > EXCERPT_CHARS ? `${content.slice(0, EXCERPT_CHARS)}…` : content;
}

function common(row: NoteRow) {
  return {
    note_id: row.id,
    title: row.title,
    language: row.language,
    char_count: row.content.length,
    duration_sec: row.duration_sec,
    source_task_id: row.source_task_id,
    created_at: row.created_at / 1000,
    updated_at: row.updated_at / 1000,
    community: row.published_at !== null,
  };
}
