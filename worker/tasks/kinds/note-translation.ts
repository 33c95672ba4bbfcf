import { readTask } from "../../../platform/task-store.ts";
import { insertNote } from "../../content/notes.ts";
import { contentRenderKind } from "./content-render.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

const render = contentRenderKind<"note_translation">({});

/**
 * A note translation: its files are checked and linked like any render's, and keeping its completion
 * makes the translated note a new note of the task's owner. The note's id is the task's, so a
 * completion stored again (a retry after a lost answer) finds its note and makes no second one. The
 * stored result names that note and leaves its text to it.
 */
export const noteTranslationKind: WorkerTaskKind<"note_translation"> = {
  ...render,
  async storedResult(env, taskId, completion) {
    const task = await readTask(env, taskId);
    // A create route always records the owner; a task without one has no one to keep a note for.
    if (!task?.owner_key_id) throw new Error(`task ${taskId} has no owner to keep its note for`);
    const { content, note_id: sourceNoteId, ...result } = completion.result;
    await insertNote(env, task.owner_key_id, taskId, {
      title: result.title,
      content,
      language: result.language,
      duration_sec: null,
      source_task_id: taskId,
    });
    return { ...result, note_id: taskId, source_note_id: sourceNoteId };
  },
};
