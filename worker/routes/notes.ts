import { createRoute } from "@hono/zod-openapi";
import { listCommunityNotes, publishNote, unpublishNote } from "../content/community-notes.ts";
import { contentEnvelope } from "../content/errors.ts";
import { createNote, deleteNote, listNotes, readNote } from "../content/notes.ts";
import { jsonBodyLimit, NOTE_JSON_MAX_BYTES } from "../middleware/body-limit.ts";
import { principalAuth } from "../middleware/principal-auth.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import { apiKeySecurity } from "../schemas/common.ts";
import { contentError } from "../schemas/content-common.ts";
import {
  CommunityNotePage,
  CreateNoteRequest,
  Note,
  NoteIdParam,
  NotePage,
  NoteQuery,
  PublishNoteRequest,
} from "../schemas/notes.ts";

/** Mounted at /v1/notes: the notes content generation starts from. */

const common = { tags: ["content"], security: apiKeySecurity };
const errors = {
  401: contentError("missing or invalid API key"),
  422: contentError("malformed body or query (error_key validation_error)"),
};
const notFound = { 404: contentError("no such note for this API key (error_key note_not_found)") };

const createRoute_ = createRoute({
  ...common,
  // Creating a note counts against the key's create budget, like every other create route.
  middleware: [principalAuth(), enqueueRateLimit(), jsonBodyLimit(NOTE_JSON_MAX_BYTES)] as const,
  method: "post",
  path: "/",
  summary: "Create a note from text, or from a finished transcription",
  request: { body: { required: true, content: { "application/json": { schema: CreateNoteRequest } } } },
  responses: {
    201: { description: "the note", content: { "application/json": { schema: Note } } },
    400: contentError("unsupported language, or an empty transcription"),
    404: contentError("no such transcription for this API key (transcription_not_found)"),
    409: contentError("the transcription is not done yet (transcription_not_finished)"),
    413: contentError("the body is over 1 MiB (payload_too_large)"),
    429: contentError("rate limit exceeded for this API key (see Retry-After)"),
    ...errors,
  },
});

const listRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/",
  summary: "The calling key's notes, newest first",
  request: { query: NoteQuery },
  responses: {
    200: { description: "one page", content: { "application/json": { schema: NotePage } } },
    ...errors,
  },
});

const readRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/{note_id}",
  summary: "One note, with its whole text",
  request: { params: NoteIdParam },
  responses: {
    200: { description: "the note", content: { "application/json": { schema: Note } } },
    ...errors,
    ...notFound,
  },
});

const deleteRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "delete",
  path: "/{note_id}",
  summary: "Delete a note (tasks made from it keep their copy)",
  request: { params: NoteIdParam },
  responses: { 204: { description: "deleted" }, ...errors, ...notFound },
});

const publishRoute = createRoute({
  ...common,
  middleware: [principalAuth(), jsonBodyLimit(NOTE_JSON_MAX_BYTES)] as const,
  method: "post",
  path: "/{note_id}/publish",
  summary: "Publish one of your notes as a community note, under a display name",
  request: {
    params: NoteIdParam,
    body: { required: false, content: { "application/json": { schema: PublishNoteRequest } } },
  },
  responses: {
    200: { description: "the note, community: true", content: { "application/json": { schema: Note } } },
    ...errors,
    ...notFound,
  },
});

const unpublishRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "post",
  path: "/{note_id}/unpublish",
  summary: "Take one of your notes out of the community (content already made from it stays)",
  request: { params: NoteIdParam },
  responses: {
    200: { description: "the note, community: false", content: { "application/json": { schema: Note } } },
    ...errors,
    ...notFound,
  },
});

const communityListRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/notes",
  summary: "Published community notes, most recently published first",
  request: { query: NoteQuery },
  responses: {
    200: { description: "one page", content: { "application/json": { schema: CommunityNotePage } } },
    ...errors,
  },
});

/** Mounted at /v1/community: what every caller may make content from. */
export const communityRoutes = createRouter(contentEnvelope).openapi(communityListRoute, async (c) =>
  c.json(await listCommunityNotes(c.env, c.req.valid("query")), 200),
);

export const noteRoutes = createRouter(contentEnvelope)
  .openapi(createRoute_, async (c) =>
    c.json(await createNote(c.env, c.get("principal").ownerId, c.req.valid("json")), 201),
  )
  .openapi(listRoute, async (c) =>
    c.json(await listNotes(c.env, c.get("principal").ownerId, c.req.valid("query")), 200),
  )
  .openapi(readRoute, async (c) =>
    c.json(await readNote(c.env, c.get("principal").ownerId, c.req.valid("param").note_id), 200),
  )
  .openapi(publishRoute, async (c) => {
    // The body is optional: without one the note is published as "anonymous".
    const body = c.req.valid("json") as { display_name?: string } | undefined;
    const { note_id } = c.req.valid("param");
    return c.json(await publishNote(c.env, c.get("principal").ownerId, note_id, body?.display_name), 200);
  })
  .openapi(unpublishRoute, async (c) =>
    c.json(await unpublishNote(c.env, c.get("principal").ownerId, c.req.valid("param").note_id), 200),
  )
  .openapi(deleteRoute, async (c) => {
    await deleteNote(c.env, c.get("principal").ownerId, c.req.valid("param").note_id);
    return c.body(null, 204);
  });
