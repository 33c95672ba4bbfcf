import { and, asc, eq } from "drizzle-orm";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { speakers } from "../../platform/schema.ts";
import { OpenAIError } from "../openai/errors.ts";
import type { Speaker, SpeakerDeleted, SpeakerList } from "../schemas/speakers.ts";
import type { CheckedClip } from "./reference-clip.ts";

/**
 * Enrolled speakers of one owner (an API key's id, or `user:<id>`): the row in D1 `speakers` and the
 * clip in R2 under `speakers/<owner>/<id>`, written and deleted together. Another owner's speaker is
 * answered like an unknown one (404).
 */

type SpeakerRow = typeof speakers.$inferSelect;

/** Where an owner's speaker clip lives (outside every shape GET /media serves). */
export function speakerObjectKey(ownerId: string, speakerId: string): string {
  return `speakers/${encodeURIComponent(ownerId)}/${speakerId}`;
}

function view(row: SpeakerRow): Speaker {
  return {
    id: row.id,
    object: "speaker",
    name: row.name,
    created_at: Math.floor(row.created_at / 1000),
    bytes: row.bytes,
    content_type: row.content_type,
    duration_sec: row.duration_sec,
  };
}

const notFound = (id: string) =>
  new OpenAIError("not_found", `no speaker ${id} for this API key`, { param: "speaker_id" });

/**
 * Enrols `name` with `clip`: the clip goes to R2, then the row is inserted only while the owner has
 * fewer than SPEAKERS_MAX_PER_KEY speakers and none of that name (one statement, so two racing
 * enrolments cannot pass the cap or share a name); a refused row takes its clip back out. 409 for a
 * taken name or a full key.
 *
 * @example await enrolSpeaker(env, "key_1", "agent", checkReferenceClip(bytes, "file")) // { id: "spk_…", name: "agent", … }
 */
export async function enrolSpeaker(
  env: Env,
  ownerId: string,
  name: string,
  clip: CheckedClip,
): Promise<Speaker> {
  const id = `spk_${crypto.randomUUID().replaceAll("-", "")}`;
  const objectKey = speakerObjectKey(ownerId, id);
  const cap = workerConfig(env).speakersMaxPerKey;
  const row: SpeakerRow = {
    id,
    owner_key_id: ownerId,
    name,
    object_key: objectKey,
    content_type: clip.contentType,
    bytes: clip.bytes.byteLength,
    duration_sec: clip.durationSec,
    created_at: Date.now(),
  };
  await env.MEDIA.put(objectKey, clip.bytes, { httpMetadata: { contentType: clip.contentType } });
  const inserted = await env.DB.prepare(
    `INSERT INTO speakers (id, owner_key_id, name, object_key, content_type, bytes, duration_sec, created_at)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8
     WHERE (SELECT COUNT(*) FROM speakers WHERE owner_key_id = ?2) < ?9
     ON CONFLICT (owner_key_id, name) DO NOTHING`,
  )
    .bind(id, ownerId, name, objectKey, row.content_type, row.bytes, row.duration_sec, row.created_at, cap)
    .run()
    .catch(async (error: unknown) => {
      await env.MEDIA.delete(objectKey);
      throw error;
    });
  if (inserted.meta.changes === 1) return view(row);
  await env.MEDIA.delete(objectKey);
  const taken = await db(env)
    .select({ id: speakers.id })
    .from(speakers)
    .where(and(eq(speakers.owner_key_id, ownerId), eq(speakers.name, name)))
    .get();
  const message = taken
    ? `a speaker named "${name}" is already enrolled (${taken.id}): delete it first, or choose another name`
    : `this API key has ${cap} enrolled speakers, the most it may keep (SPEAKERS_MAX_PER_KEY): delete one first`;
  throw new OpenAIError("conflict", message, {
    param: taken ? "name" : null,
    openaiCode: taken ? "speaker_name_taken" : "speaker_limit_reached",
    retryable: false,
  });
}

/** The owner's speakers, oldest first: at most SPEAKERS_MAX_PER_KEY, so one answer holds them all. */
export async function listSpeakers(env: Env, ownerId: string): Promise<SpeakerList> {
  const rows = await ownerRows(env, ownerId);
  return { object: "list", data: rows.map(view), has_more: false };
}

/** Every speaker row of an owner, oldest first (what `known_speakers=all` names). */
export function ownerRows(env: Env, ownerId: string): Promise<SpeakerRow[]> {
  return db(env)
    .select()
    .from(speakers)
    .where(eq(speakers.owner_key_id, ownerId))
    .orderBy(asc(speakers.created_at), asc(speakers.id))
    .all();
}

/** One speaker of the owner; 404 for an unknown id or another owner's. */
export async function readSpeaker(env: Env, ownerId: string, id: string): Promise<Speaker> {
  const row = await db(env)
    .select()
    .from(speakers)
    .where(and(eq(speakers.id, id), eq(speakers.owner_key_id, ownerId)))
    .get();
  if (!row) throw notFound(id);
  return view(row);
}

/**
 * Deletes a speaker: its clip first, then its row, so a failure in between leaves a row whose delete
 * can be asked again, never a clip no row points at. 404 for an unknown id or another owner's.
 */
export async function deleteSpeaker(env: Env, ownerId: string, id: string): Promise<SpeakerDeleted> {
  const row = await db(env)
    .select({ object_key: speakers.object_key })
    .from(speakers)
    .where(and(eq(speakers.id, id), eq(speakers.owner_key_id, ownerId)))
    .get();
  if (!row) throw notFound(id);
  await env.MEDIA.delete(row.object_key);
  await db(env)
    .delete(speakers)
    .where(and(eq(speakers.id, id), eq(speakers.owner_key_id, ownerId)));
  return { id, object: "speaker.deleted", deleted: true };
}
