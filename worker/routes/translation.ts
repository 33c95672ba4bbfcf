import { createRoute, z } from "@hono/zod-openapi";
import { NAME_MAX_CHARS } from "../../protocol/rooms.ts";
import { openSingleSocket } from "../live/open-socket.ts";
import { liveKeyAuth } from "../live/ws-auth.ts";
import { apiKeyAuth } from "../middleware/api-key-auth.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { sessionRateLimit } from "../middleware/rate-limit.ts";
import { createRouter } from "../router.ts";
import { socketTokenParam } from "../schemas/auth.ts";
import { apiKeySecurity } from "../schemas/common.ts";
import { Note } from "../schemas/notes.ts";
import {
  HostControlBody,
  HostControlResponse,
  LanguagesResponse,
  SessionCreateBody,
  SessionCreated,
  SessionDetailsResponse,
  translationErrorContent,
} from "../schemas/translation.ts";
import { translationEnvelope } from "../translation/errors.ts";
import { controlRoom, hostAuth, hostProof } from "../translation/host-controls.ts";
import { readLanguages } from "../translation/languages.ts";
import { openRoomSocket } from "../translation/room-socket.ts";
import { TRANSCRIPT_FORMATS } from "../translation/room-transcript-export.ts";
import {
  deleteRoomTranscript,
  downloadRoomTranscript,
  roomTranscriptNote,
} from "../translation/room-transcripts.ts";
import { createSession, sessionDetails } from "../translation/sessions.ts";

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const error = (description: string) => ({ description, content: translationErrorContent });

const languagesRoute = createRoute({
  method: "get",
  path: "/languages",
  tags: ["translation"],
  summary: "Languages the deployment can hear and translate between, and the defaults",
  responses: {
    200: { description: "language list", content: json(LanguagesResponse) },
    503: error("no translation engine is connected, or the service is temporarily unavailable"),
  },
});

const createSessionRoute = createRoute({
  method: "post",
  path: "/session/create",
  tags: ["translation"],
  summary: "Create a multi-device session; its join_url (or a QR code of it) lets others in",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), sessionRateLimit(), jsonBodyLimit()] as const,
  request: { body: { required: true, content: json(SessionCreateBody) } },
  responses: {
    200: { description: "the session", content: json(SessionCreated) },
    400: error("unsupported language"),
    401: error("missing or invalid API key"),
    413: error("the body is over 64 KiB"),
    422: error("body validation failed"),
    429: error("over the per-key limit; see Retry-After"),
    503: error("the session store is unavailable"),
  },
});

const sessionRoute = createRoute({
  method: "get",
  path: "/session/{conversation_id}",
  tags: ["translation"],
  summary: "The initiator's language settings (no key: the conversation id is the capability)",
  request: { params: z.object({ conversation_id: z.string().max(64) }) },
  responses: {
    200: { description: "session details", content: json(SessionDetailsResponse) },
    404: error("unknown or expired conversation"),
    503: error("the session store is unavailable"),
  },
});

const singleRoute = createRoute({
  method: "get",
  path: "/ws/single",
  tags: ["translation"],
  summary: "Single-device translation over a WebSocket (protocol: docs/api.md)",
  security: apiKeySecurity,
  middleware: [liveKeyAuth("translate")] as const,
  request: {
    query: z.object({
      api_key: z.string().max(200).optional().openapi({
        description: "deprecated: the API key in the URL; browsers should use `token` (POST /v1/auth/tokens)",
        deprecated: true,
      }),
      token: socketTokenParam("translate"),
    }),
  },
  responses: {
    101: {
      description:
        "WebSocket: send `config`, then PCM16 audio; `transcript` messages come back. No free engine: " +
        "an error message and close 1013.",
    },
    400: error("not a WebSocket upgrade"),
    401: error("missing or invalid API key"),
  },
});

const roomRoute = createRoute({
  method: "get",
  path: "/ws/{conversation_id}",
  tags: ["translation"],
  summary: "Join a multi-device room over a WebSocket (no key: the conversation id is the capability)",
  request: {
    params: z.object({ conversation_id: z.string().max(64) }),
    query: z.object({
      language: z
        .string()
        .max(64)
        .optional()
        .openapi({ description: "your language (required)", example: "es" }),
      client_id: z.string().max(64).optional().openapi({
        description:
          "the id you would like in the room (first connect; a taken one is replaced by a fresh id)",
      }),
      resume: z.string().max(64).optional().openapi({
        description:
          "the resume_token of your last welcome: reconnect with it within 30 s to keep your place",
      }),
      role: z.string().max(16).optional().openapi({
        description: "speaker (default: your audio is transcribed) or listener (you only read)",
      }),
      name: z
        .string()
        .max(256)
        .optional()
        .openapi({
          description: `your display name, shown to everyone and on your finals (trimmed, at most ${NAME_MAX_CHARS} characters, no control characters)`,
        }),
      speak: z.string().max(8).optional().openapi({
        description:
          "true: hear each final spoken in your language (translation_audio after its transcript); default false, a reconnect keeps it",
      }),
    }),
  },
  responses: {
    101: {
      description:
        "WebSocket: welcome, presence, transcripts. Closed 4404 (unknown or expired conversation), 4400 " +
        "(bad language, client_id, resume token, role, name or speak), 4429 (room full), 4408 (room expired), " +
        "4409 (resumed elsewhere), 4410 (the room reached ROOM_MAX_AGE_SEC), 4403 (removed by the host), " +
        "4423 (locked by the host), 4460 (ended by the host).",
    },
    400: error("not a WebSocket upgrade"),
  },
});

const controlRoute = createRoute({
  method: "post",
  path: "/session/{conversation_id}/control",
  tags: ["translation"],
  summary: "Host controls: lock, unlock, end the room; remove a participant, stop a speaker, grant the floor",
  security: apiKeySecurity,
  middleware: [hostAuth(), jsonBodyLimit()] as const,
  request: {
    params: z.object({ conversation_id: z.string().max(64) }),
    headers: z.object({
      "x-host-token": z.string().max(64).optional().openapi({
        description: "the host_token of the create response (else: the API key that created the room)",
      }),
    }),
    body: { required: true, content: json(HostControlBody) },
  },
  responses: {
    200: { description: "the room after the action", content: json(HostControlResponse) },
    401: error("neither a host token nor a valid API key"),
    403: error("not this room's host token"),
    404: error("unknown or expired conversation, a room another key created, or no such participant"),
    422: error("body validation failed"),
  },
});

const transcriptParams = z.object({ conversation_id: z.string().max(64) });

const transcriptRoute = createRoute({
  method: "get",
  path: "/session/{conversation_id}/transcript",
  tags: ["translation"],
  summary:
    "The room's transcript, for the key that created it: during the room and ROOM_TRANSCRIPT_TTL_SEC after",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: {
    params: transcriptParams,
    query: z.object({
      format: z.enum(TRANSCRIPT_FORMATS).default("json"),
      language: z.string().max(64).optional().openapi({
        description: "each final in this language (where the room translated it); default: as spoken",
      }),
      bilingual: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true")
        .openapi({ description: "each cue in its original words and, under them, in `language`" }),
    }),
  },
  responses: {
    200: {
      description:
        "the transcript: JSON, text, SubRip or WebVTT, speakers numbered, times from the room's start",
      content: {
        "application/json": { schema: z.string() },
        "text/plain": { schema: z.string() },
        "application/x-subrip": { schema: z.string() },
        "text/vtt": { schema: z.string() },
      },
    },
    400: error("unsupported language, or bilingual without a language"),
    401: error("missing or invalid API key"),
    404: error("no transcript of this conversation for this API key"),
    422: error("bad format"),
  },
});

const deleteTranscriptRoute = createRoute({
  method: "delete",
  path: "/session/{conversation_id}/transcript",
  tags: ["translation"],
  summary: "Delete the room's transcript now (the room, if still open, goes on)",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { params: transcriptParams },
  responses: {
    204: { description: "deleted" },
    401: error("missing or invalid API key"),
    404: error("no transcript of this conversation for this API key"),
  },
});

const transcriptNoteRoute = createRoute({
  method: "post",
  path: "/session/{conversation_id}/transcript/note",
  tags: ["translation"],
  summary: "Make a note of the room's transcript, for the content studio",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), jsonBodyLimit()] as const,
  request: {
    params: transcriptParams,
    body: {
      required: false,
      content: json(
        z.strictObject({
          language: z.string().max(64).optional(),
          title: z.string().trim().min(1).max(300).optional(),
        }),
      ),
    },
  },
  responses: {
    201: { description: "the note", content: json(Note) },
    400: error("unsupported language"),
    401: error("missing or invalid API key"),
    404: error("no transcript of this conversation for this API key"),
    409: error("nothing was said yet"),
    413: error("the transcript is longer than a note may be"),
  },
});

/**
 * Mounted at /api/v1: the real-time translation API (spec: realtime-translation.md): languages,
 * multi-device sessions and the two WebSocket endpoints.
 */
export const translationRoutes = createRouter(translationEnvelope)
  .openapi(languagesRoute, async (c) => c.json(await readLanguages(c.env), 200))
  .openapi(createSessionRoute, async (c) =>
    c.json(await createSession(c.env, c.req.url, c.req.valid("json"), c.get("apiKey").id), 200),
  )
  .openapi(sessionRoute, async (c) =>
    c.json(await sessionDetails(c.env, c.req.valid("param").conversation_id), 200),
  )
  .openapi(transcriptRoute, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const file = await downloadRoomTranscript(
      c.env,
      conversation_id,
      c.get("apiKey").id,
      c.req.valid("query"),
    );
    // c.text keeps the given content-type
    return c.text(file.body, 200, {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
    });
  })
  .openapi(deleteTranscriptRoute, async (c) => {
    await deleteRoomTranscript(c.env, c.req.valid("param").conversation_id, c.get("apiKey").id);
    return c.body(null, 204);
  })
  .openapi(transcriptNoteRoute, async (c) => {
    const body = (c.req.valid("json") as { language?: string; title?: string } | undefined) ?? {};
    const { conversation_id } = c.req.valid("param");
    return c.json(await roomTranscriptNote(c.env, conversation_id, c.get("apiKey").id, body), 201);
  })
  .openapi(controlRoute, async (c) => {
    const proof = await hostProof(c.req.valid("header")["x-host-token"], c.get("apiKey")?.id);
    const { conversation_id } = c.req.valid("param");
    return c.json(await controlRoom(c.env, conversation_id, proof, c.req.valid("json")), 200);
  })
  .openapi(singleRoute, async (c) => openSingleSocket(c.env, c.req.raw, { keyId: c.get("apiKey").id }))
  .openapi(roomRoute, async (c) => {
    const { language, client_id, resume, role, name, speak } = c.req.valid("query");
    return openRoomSocket(c.env, c.req.raw, c.req.valid("param").conversation_id, {
      language: language ?? null,
      client_id: client_id ?? null,
      resume: resume ?? null,
      as: role ?? null,
      name: name ?? null,
      speak: speak ?? null,
    });
  });
