import { and, count, desc, eq, isNotNull } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { notes } from "../../platform/schema.ts";
import type { CommunityNotePage, Note } from "../schemas/notes.ts";
import { ContentApiError } from "./errors.ts";
import { excerptOf, type NoteRow, toNote } from "./notes.ts";

/**
 * Community notes (content spec: `community` — "generate from a community note"): a note's owner
 * publishes it under a display name of their choosing, everyone sees it in the community list, and any
 * caller may make content from it with `community=true` (the content is theirs; the note stays its
 * owner's). Unpublishing stops new creations at once; tasks already made keep their copy of the note.
 */

const DEFAULT_PUBLISHER = "anonymous";

const noteNotFound = () =>
  new ContentApiError("not_found", "note_not_found", "no such note for this API key");

/** Publishes (or republishes under another name) one of the owner's notes. */
export async function publishNote(
  env: Env,
  ownerKeyId: string,
  noteId: string,
  displayName: string | undefined,
): Promise<Note> {
  return setPublished(env, ownerKeyId, noteId, {
    published_at: Date.now(),
    publisher_name: displayName ?? DEFAULT_PUBLISHER,
  });
}

/** Takes one of the owner's notes out of the community. */
export async function unpublishNote(env: Env, ownerKeyId: string, noteId: string): Promise<Note> {
  return setPublished(env, ownerKeyId, noteId, { published_at: null, publisher_name: null });
}

async function setPublished(
  env: Env,
  ownerKeyId: string,
  noteId: string,
  change: Pick<NoteRow, "published_at" | "publisher_name">,
): Promise<Note> {
  const [row] = await db(env)
    .update(notes)
    .set(change)
    .where(and(eq(notes.id, noteId), eq(notes.owner_key_id, ownerKeyId)))
    .returning();
  if (!row) throw noteNotFound();
  return toNote(row);
}

/** A published note, whoever owns it; null when there is none (or it was unpublished). */
export async function findPublishedNote(env: Env, noteId: string): Promise<NoteRow | null> {
  const row = await db(env)
    .select()
    .from(notes)
    .where(and(eq(notes.id, noteId), isNotNull(notes.published_at)))
    .get();
  return row ?? null;
}

/** A page of the community, most recently published first. */
export async function listCommunityNotes(
  env: Env,
  page: { limit: number; skip: number },
): Promise<CommunityNotePage> {
  const store = db(env);
  const published = isNotNull(notes.published_at);
  const [rows, totals] = await store.batch([
    store
      .select()
      .from(notes)
      .where(published)
      .orderBy(desc(notes.published_at), desc(notes.id))
      .limit(page.limit)
      .offset(page.skip),
    store.select({ n: count() }).from(notes).where(published),
  ]);
  return {
    notes: rows.map((row) => ({
      note_id: row.id,
      title: row.title,
      language: row.language,
      char_count: row.content.length,
      excerpt: excerptOf(row.content),
      publisher: row.publisher_name ?? DEFAULT_PUBLISHER,
      published_at: (row.published_at ?? 0) / 1000,
    })),
    total: totals[0]?.n ?? 0,
    ...page,
  };
}
