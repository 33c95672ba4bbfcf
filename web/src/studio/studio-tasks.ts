import { signal } from "@preact/signals";
import { isStudioKind, STUDIO_STORAGE_PREFIX, type StudioKind } from "./studio-kinds.ts";

/**
 * The content tasks this browser started, kept in localStorage until dismissed: after a reload the
 * studio polls the open ones again and shows the finished ones' results (with fresh links).
 */
export interface StudioTask {
  task_id: string;
  kind: StudioKind;
  /** The note it was made from, as titled then. */
  note_title: string;
  /** Unix ms. */
  created_at: number;
}

const STORAGE_KEY = `${STUDIO_STORAGE_PREFIX}tasks`;

function read(): StudioTask[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]") as unknown;
    return Array.isArray(parsed)
      ? (parsed as StudioTask[]).filter(
          (task) => typeof task?.task_id === "string" && isStudioKind(task?.kind),
        )
      : [];
  } catch {
    return [];
  }
}

export const studioTasks = signal<StudioTask[]>(read());

function save(tasks: StudioTask[]): void {
  studioTasks.value = tasks;
  localStorage.setItem(STORAGE_KEY, JSON.stringify(tasks));
}

export function addStudioTask(task: StudioTask): void {
  save([task, ...studioTasks.value.filter((t) => t.task_id !== task.task_id)]);
}

export function removeStudioTask(taskId: string): void {
  save(studioTasks.value.filter((t) => t.task_id !== taskId));
}

// Another tab of the console changed the list.
addEventListener("storage", (event) => {
  if (event.key === STORAGE_KEY || event.key === null) studioTasks.value = read();
});
