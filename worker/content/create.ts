import { workerConfig } from "../../platform/config.ts";
import { type ContentKind, type NoteSnapshot, translationSourceLanguage } from "../../protocol/content.ts";
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
import { badField, type FormFields, flag, required } from "./form-fields.ts";
import type { CreateForm } from "./forms/create-form.ts";
import { CREATE_FORMS } from "./forms/index.ts";
import { findOwnNote } from "./notes.ts";
import { checkTranslationPair } from "./translation-check.ts";

/**
 * The create endpoints (/v2/create/…, one per row of CREATE_FORMS): every request error is answered at
 * once with its own error_key, so a task exists only for work that can run. The note is copied into
 * the task (a later edit or delete of the note does not change a running render).
 */

/**
 * Checks a create form and queues its render. Idempotency-Key returns an earlier request's task.
 *
 * @example await createContentTask(env, { ownerKeyId, userId, idempotencyKey: null, origin }, "shorts", fields)
 */
export async function createContentTask(
  env: Env,
  caller: EnqueueCaller & { userId: string },
  kind: ContentKind,
  fields: FormFields,
): Promise<{ accepted: CreateAccepted; replayed: boolean }> {
  const noteId = required(fields, "note_id");
  const form = CREATE_FORMS[kind] as CreateForm<ContentKind>;
  const params = form.params(fields);
  const community = flag(fields, "community");
  const webhook = checkWebhookFields(
    {
      webhook_url: fields.get("webhook_url"),
      webhook_auth_header_name: fields.get("webhook_auth_header_name"),
      webhook_auth_header_value: fields.get("webhook_auth_header_value"),
    },
    workerConfig(env).urlAllowlist,
  );
  if (!webhook.ok) throw badField("invalid_webhook", webhook.reason);
  if (webhook.target && isUserOwner(caller.ownerKeyId)) {
    // Deliveries are signed with the owning key's webhook secret, and a user has no key of their own.
    throw badField(
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
      form.checkNote?.(params, note);
      const madeIn = form.madeIn?.(params);
      if (madeIn) await checkTranslationPair(env, translationSourceLanguage(note), madeIn);
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
