import { workerConfig } from "../../platform/config.ts";
import type { ContentKind } from "../../protocol/content.ts";
import {
  BACKGROUNDS,
  DEFAULT_BG_ID,
  DEFAULT_QUIZ_TEMPLATE_ID,
  type NoteSnapshot,
  parseSlideCountRange,
  TEMPLATES,
  type Template,
  VOICES,
} from "../../protocol/content.ts";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { TASK_CONTRACTS } from "../../protocol/task.ts";
import { isUserOwner } from "../auth/principal.ts";
import type { EnqueueCaller } from "../ingest/enqueue.ts";
import type { CreateAccepted } from "../schemas/content.ts";
import { idempotent } from "../tasks/idempotency.ts";
import { submitTask } from "../tasks/submit.ts";
import { WEBHOOK_BACKLOG_RETRY_SEC, webhookBacklogRefusal } from "../webhooks/backlog.ts";
import { checkWebhookFields } from "../webhooks/target.ts";
import { findPublishedNote } from "./community-notes.ts";
import { ContentApiError } from "./errors.ts";
import { findOwnNote } from "./notes.ts";

/**
 * The create endpoints (/v2/create/shorts, /quiz-video, /slide): every request error is answered at
 * once with its own error_key, so a task exists only for work that can run. The note is copied into
 * the task (a later edit or delete of the note does not change a running render).
 */

type Fields = ReadonlyMap<string, string>;

const bad = (errorKey: string, message: string) => new ContentApiError("bad_request", errorKey, message);

function required(fields: Fields, name: string): string {
  const value = fields.get(name);
  if (value === undefined) throw bad("missing_field", `${name} is required`);
  return value;
}

function voiceId(fields: Fields): string {
  const id = required(fields, "voice_id");
  if (!VOICES.some((voice) => voice.voice_id === id)) {
    throw bad("unknown_voice", `voice_id "${id}" is not one of GET /v1/voices`);
  }
  return id;
}

function bgId(fields: Fields): string {
  const id = fields.get("bg_id") ?? DEFAULT_BG_ID;
  if (!BACKGROUNDS.some((bg) => bg.bg_id === id)) {
    throw bad("unknown_background", `bg_id "${id}" is not one of GET /v1/backgrounds`);
  }
  return id;
}

function templateId(fields: Fields, kind: Template["kind"], fallback?: string): string {
  const id =
    fallback === undefined ? required(fields, "template_id") : (fields.get("template_id") ?? fallback);
  if (!TEMPLATES.some((template) => template.template_id === id && template.kind === kind)) {
    throw bad("unknown_template", `template_id "${id}" is not a ${kind} template of GET /v1/templates`);
  }
  return id;
}

function flag(fields: Fields, name: string): boolean {
  const value = fields.get(name)?.toLowerCase();
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw bad("invalid_boolean", `${name} must be true, false, 1 or 0`);
}

function clipDuration(fields: Fields): number {
  const value = fields.get("clip_duration");
  if (value === undefined) return 30;
  const seconds = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= 5 && seconds <= 180)) {
    throw bad("invalid_clip_duration", "clip_duration must be a whole number of seconds from 5 to 180");
  }
  return seconds;
}

function slideCount(fields: Fields) {
  const value = fields.get("slide_count_range") ?? "5-8";
  const range = parseSlideCountRange(value);
  if (!range)
    throw bad("invalid_slide_count_range", 'slide_count_range must be "a-b" with 1 <= a <= b <= 30');
  return range;
}

function slideLanguage(fields: Fields): "en" | "vi" | null {
  const value = fields.get("language");
  if (value === undefined) return null;
  const choice = normalizeLanguage(value);
  if (choice.kind === "language" && (choice.code === "en" || choice.code === "vi")) return choice.code;
  throw bad("unsupported_language", `language "${value}" is not supported for slides: use en or vi`);
}

/** The params of a create request minus its note, checked field by field. */
function paramsOf(kind: ContentKind, fields: Fields) {
  switch (kind) {
    case "shorts":
      return {
        voice_id: voiceId(fields),
        clip_duration: clipDuration(fields),
        is_audio_only: flag(fields, "is_audio_only"),
        bg_id: bgId(fields),
      };
    case "quiz_video":
      return {
        voice_id: voiceId(fields),
        bg_id: bgId(fields),
        template_id: templateId(fields, "quiz_video", DEFAULT_QUIZ_TEMPLATE_ID),
      };
    case "slide":
      return {
        template_id: templateId(fields, "slide"),
        language: slideLanguage(fields),
        slide_count: slideCount(fields),
        community: flag(fields, "community"),
      };
  }
}

/**
 * Checks a create form and queues its render. Idempotency-Key returns an earlier request's task.
 *
 * @example await createContentTask(env, { ownerKeyId, userId, idempotencyKey: null, origin }, "shorts", fields)
 */
export async function createContentTask(
  env: Env,
  caller: EnqueueCaller & { userId: string },
  kind: ContentKind,
  fields: Fields,
): Promise<{ accepted: CreateAccepted; replayed: boolean }> {
  const noteId = required(fields, "note_id");
  const params = paramsOf(kind, fields);
  const community = flag(fields, "community");
  const webhook = checkWebhookFields(
    {
      webhook_url: fields.get("webhook_url"),
      webhook_auth_header_name: fields.get("webhook_auth_header_name"),
      webhook_auth_header_value: fields.get("webhook_auth_header_value"),
    },
    workerConfig(env).urlAllowlist,
  );
  if (!webhook.ok) throw bad("invalid_webhook", webhook.reason);
  if (webhook.target && isUserOwner(caller.ownerKeyId)) {
    // Deliveries are signed with the owning key's webhook secret, and a user has no key of their own.
    throw bad(
      "webhook_needs_api_key",
      "a task made for a user cannot have a webhook (deliveries are signed with an API key's secret): poll it, or create it as the key itself",
    );
  }
  const request = `${kind}:${JSON.stringify([...fields].sort(([a], [b]) => a.localeCompare(b)))}`;
  const { taskId, replayed } = await idempotent(
    env,
    { ownerKeyId: caller.ownerKeyId, key: caller.idempotencyKey, request },
    async () => {
      const backlog = webhook.target ? await webhookBacklogRefusal(env, caller.ownerKeyId) : null;
      if (backlog) {
        throw new ContentApiError("rate_limited", "webhook_backlog", backlog, {
          "retry-after": String(WEBHOOK_BACKLOG_RETRY_SEC),
        });
      }
      // community=true also reaches a note another owner published; without it, theirs stays 404.
      const row =
        (await findOwnNote(env, caller.ownerKeyId, noteId)) ??
        (community ? await findPublishedNote(env, noteId) : null);
      if (!row) {
        throw new ContentApiError(
          "not_found",
          "note_not_found",
          community
            ? "no such note of yours, nor a published community note"
            : "no such note for this API key",
        );
      }
      const note: NoteSnapshot = {
        note_id: row.id,
        title: row.title,
        content: row.content,
        language: row.language,
      };
      const record = await submitTask(env, {
        ownerKeyId: caller.ownerKeyId,
        kind,
        lane: "batch",
        params: TASK_CONTRACTS[kind].params.parse({ ...params, note }),
        source: { type: "none" },
        webhook: webhook.target ? { target: webhook.target, baseUrl: caller.origin } : null,
      });
      return record.task_id;
    },
  );
  return {
    accepted: { status: "PROCESSING", data: { task_id: taskId, user_id: caller.userId } },
    replayed,
  };
}
