import type { z } from "@hono/zod-openapi";
import type { NoteSnapshot } from "../../../protocol/content.ts";
import type { ContentKind, TaskContract } from "../../../protocol/task.ts";
import type { FormFields } from "../form-fields.ts";

/**
 * One create endpoint (POST /v2/create/<path>): its path, its summary and form in the API document, and how
 * its form becomes the kind's params (all but the note, which createContentTask copies in). A wrong
 * field throws a ContentApiError with its own error_key.
 */
export interface CreateForm<K extends ContentKind> {
  path: `/${string}`;
  summary: string;
  /** The form as the API document shows it (fields are read by `params`, not by this schema). */
  form: z.ZodObject;
  params(fields: FormFields): Omit<z.input<TaskContract<K>["params"]>, "note">;
  /**
   * Checks what only the note tells (the language a voice must speak, a translation into the note's own
   * language), once the note is found; a wrong field throws as `params` does.
   */
  checkNote?(params: Omit<z.input<TaskContract<K>["params"]>, "note">, note: NoteSnapshot): void;
  /**
   * The language the artifact is made in when the form fixes one (a `language` field, a voice's
   * language); null: the note's own. Another than the note's means a translation on the node.
   */
  madeIn?(params: Omit<z.input<TaskContract<K>["params"]>, "note">): string | null;
}
