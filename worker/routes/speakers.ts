import { createRoute } from "@hono/zod-openapi";
import type { AppRouter } from "../env.ts";
import { jsonBodyLimit } from "../middleware/body-limit.ts";
import { principalAuth } from "../middleware/principal-auth.ts";
import { enqueueRateLimit } from "../middleware/rate-limit.ts";
import { openAIEnvelope } from "../openai/errors.ts";
import { createRouter } from "../router.ts";
import { OpenAIErrorBody } from "../schemas/openai.ts";
import {
  EnrolSpeakerForm,
  EnrolSpeakerJson,
  enrolSpeakerFormRef,
  enrolSpeakerJsonRef,
  Speaker,
  SpeakerDeleted,
  SpeakerIdParam,
  SpeakerList,
} from "../schemas/speakers.ts";
import { readEnrolment } from "../speakers/enrol-request.ts";
import { deleteSpeaker, enrolSpeaker, listSpeakers, readSpeaker } from "../speakers/speaker-store.ts";

/**
 * Mounted at /v1/speakers: enrolled speakers, voices async transcriptions name their diarized speakers
 * after (`known_speakers`). Beside the OpenAI-compatible routes, so errors are in OpenAI's envelope.
 */

/** Largest enrolment body: an 8 MiB clip as a data URL (base64, 4/3 of it) with room for the form. */
export const ENROL_BODY_MAX_BYTES = 12 * 1024 * 1024;

const common = { tags: ["speakers"], security: [{ bearerAuth: [] }] };
const error = (description: string) => ({
  description,
  content: { "application/json": { schema: OpenAIErrorBody } },
});
const unauthorized = { 401: error("missing or invalid API key, service key or user JWT") };
const notFound = { 404: error("no speaker with this id for this API key (another key's is 404 too)") };

const enrolRoute = createRoute({
  ...common,
  middleware: [principalAuth(), enqueueRateLimit(), jsonBodyLimit(ENROL_BODY_MAX_BYTES)] as const,
  method: "post",
  path: "/",
  summary: "Enrol a speaker: a name and a 2-30 s reference clip of their voice",
  request: {
    body: {
      required: true,
      content: {
        "multipart/form-data": { schema: enrolSpeakerFormRef },
        "application/json": { schema: enrolSpeakerJsonRef },
      },
    },
  },
  responses: {
    201: { description: "the speaker", content: { "application/json": { schema: Speaker } } },
    400: error(
      "no name or an unusable one, no clip, a clip that is not audio, or a WAV outside 2-30 s (each naming its param)",
    ),
    ...unauthorized,
    409: error(
      "the name is taken for this key (code speaker_name_taken), or the key has SPEAKERS_MAX_PER_KEY speakers (speaker_limit_reached)",
    ),
    413: error(`the body is over ${ENROL_BODY_MAX_BYTES} bytes`),
    415: error("a body that is neither multipart/form-data, JSON nor a urlencoded form"),
    429: error("rate limit exceeded for this API key (see Retry-After)"),
  },
});

const listRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/",
  summary: "Every enrolled speaker of the key (at most SPEAKERS_MAX_PER_KEY), oldest first",
  responses: {
    200: { description: "the speakers", content: { "application/json": { schema: SpeakerList } } },
    ...unauthorized,
  },
});

const readRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "get",
  path: "/{speaker_id}",
  summary: "One enrolled speaker",
  request: { params: SpeakerIdParam },
  responses: {
    200: { description: "the speaker", content: { "application/json": { schema: Speaker } } },
    ...unauthorized,
    ...notFound,
  },
});

const deleteRoute = createRoute({
  ...common,
  middleware: [principalAuth()] as const,
  method: "delete",
  path: "/{speaker_id}",
  summary: "Delete a speaker: its clip and its record (no voice profile is kept anywhere)",
  request: { params: SpeakerIdParam },
  responses: {
    200: { description: "deleted", content: { "application/json": { schema: SpeakerDeleted } } },
    ...unauthorized,
    ...notFound,
  },
});

export const speakerRoutes: AppRouter = createRouter(openAIEnvelope);
speakerRoutes.openAPIRegistry.register("EnrolSpeakerForm", EnrolSpeakerForm);
speakerRoutes.openAPIRegistry.register("EnrolSpeakerJson", EnrolSpeakerJson);

speakerRoutes
  .openapi(enrolRoute, async (c) => {
    const { name, clip } = await readEnrolment(c.req.raw);
    return c.json(await enrolSpeaker(c.env, c.get("principal").ownerId, name, clip), 201);
  })
  .openapi(listRoute, async (c) => c.json(await listSpeakers(c.env, c.get("principal").ownerId), 200))
  .openapi(readRoute, async (c) =>
    c.json(await readSpeaker(c.env, c.get("principal").ownerId, c.req.valid("param").speaker_id), 200),
  )
  .openapi(deleteRoute, async (c) =>
    c.json(await deleteSpeaker(c.env, c.get("principal").ownerId, c.req.valid("param").speaker_id), 200),
  );
