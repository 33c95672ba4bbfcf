import { readTask } from "../../../platform/task-store.ts";
import { insertNote } from "../../content/notes.ts";
import { contentRenderKind } from "./content-render.ts";
import type { WorkerTaskKind } from "./worker-task-kind.ts";

const render = contentRenderKind<"note_translation">({});

/**
 * A note translation: its files are checked and linked like any render's, and keeping its completion
 * makes the translated note a new note of the task's owner. The note's id is the task's, so a
 * completion stored again (a retry after a lost answer) finds its note and makes no second one. The
 * stored result names that note and leaves its text to it. (A note made just before the task is
 * deleted stays: it is the owner's, like any other.)
 */
export const noteTranslationKind: WorkerTaskKind<"note_translation"> = {
  ...render,
  async storedResult(env, taskId, completion) {
    const { content, note_id: sourceNoteId, ...result } = completion.result;
    const task = await readTask(env, taskId);
    // A task deleted or ended meanwhile keeps no result (the status write refuses it, and the node is
    // told its lease is gone), so it makes no note either.
    if (task?.owner_key_id && (task.status === "queued" || task.status === "processing")) {
      await insertNote(env, task.owner_key_id, taskId, {
        title: result.title,
        content,
        language: result.language,
        duration_sec: null,
        source_task_id: taskId,
      });
    }
    return { ...result, note_id: taskId, source_note_id: sourceNoteId };
  },
};
