import { z } from "@hono/zod-openapi";
import { PageQuery } from "./common.ts";

/** Longest note text accepted (characters). */
export const NOTE_MAX_CHARS = 100_000;

const TypedNote = z.strictObject({
  title: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .openapi({ description: "derived from the text when omitted" }),
  content: z.string().trim().min(1).max(NOTE_MAX_CHARS).openapi({ description: "plain text or Markdown" }),
  language: z
    .string()
    .max(16)
    .optional()
    .openapi({ description: "short code such as vi or en; detected from the text when omitted" }),
});

const FromTranscription = z.strictObject({
  transcription_task_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ description: "a finished transcription of the same API key" }),
  title: z.string().trim().min(1).max(300).optional(),
});

export const CreateNoteRequest = z.union([TypedNote, FromTranscription]).meta({ id: "CreateNoteRequest" });
export type CreateNoteRequest = z.infer<typeof CreateNoteRequest>;

const noteFields = {
  note_id: z.string(),
  title: z.string(),
  language: z.string().nullable(),
  char_count: z.number().int(),
  duration_sec: z
    .number()
    .nullable()
    .openapi({ description: "audio length, for a note made from a transcription" }),
  source_task_id: z.string().nullable(),
  created_at: z.number().openapi({ description: "Unix seconds" }),
  updated_at: z.number().openapi({ description: "Unix seconds" }),
  community: z.boolean().openapi({
    description: "published as a community note: anyone may make content from it with community=true",
  }),
};

export const Note = z.object({ ...noteFields, content: z.string() }).meta({ id: "Note" });
export type Note = z.infer<typeof Note>;

export const NoteSummary = z
  .object({ ...noteFields, excerpt: z.string().openapi({ description: "the first 200 characters" }) })
  .meta({ id: "NoteSummary" });
export type NoteSummary = z.infer<typeof NoteSummary>;

export const NotePage = z
  .object({
    notes: z.array(NoteSummary),
    total: z.number().int(),
    limit: z.number().int(),
    skip: z.number().int(),
  })
  .meta({ id: "NotePage" });
export type NotePage = z.infer<typeof NotePage>;

export const NoteIdParam = z.object({
  note_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "note_id", in: "path" } }),
});

/** Paging as on /history. */
export const NoteQuery = PageQuery;

export const PublishNoteRequest = z
  .strictObject({
    display_name: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .optional()
      .openapi({ description: "the name shown beside the note in the community list (default: anonymous)" }),
  })
  .meta({ id: "PublishNoteRequest" });

export const CommunityNote = z
  .object({
    note_id: z.string(),
    title: z.string(),
    language: z.string().nullable(),
    char_count: z.number().int(),
    excerpt: z.string().openapi({ description: "the first 200 characters" }),
    publisher: z
      .string()
      .openapi({ description: "the display name its owner chose; never a key or user id" }),
    published_at: z.number().openapi({ description: "Unix seconds" }),
  })
  .meta({ id: "CommunityNote" });
export type CommunityNote = z.infer<typeof CommunityNote>;

export const CommunityNotePage = z
  .object({
    notes: z.array(CommunityNote),
    total: z.number().int(),
    limit: z.number().int(),
    skip: z.number().int(),
  })
  .meta({ id: "CommunityNotePage" });
export type CommunityNotePage = z.infer<typeof CommunityNotePage>;
