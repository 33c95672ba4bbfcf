import { contentApi } from "../api/client.ts";
import { errorKeyText } from "../api/errors.ts";
import type { ContentTaskResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { en, type MessageKey } from "../i18n/messages.ts";
import { DeleteButton } from "../ui/delete-button.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";
import { kindSpec } from "./studio-kinds.ts";
import { removeStudioTask, type StudioTask } from "./studio-tasks.ts";
import { type NoteActions, TaskResult } from "./task-result.tsx";
import { taskView } from "./task-view.ts";
import { useContentTask } from "./use-content-task.ts";

/** A running step in words ("Rendering the video"); the step's own name for one this console does not know. */
function stepText(step: string | null): string {
  const key = `studio.step.${step}`;
  return step && Object.hasOwn(en, key) ? t(key as MessageKey) : (step ?? t("studio.working"));
}

/** One content task this browser started: where it stands (step, progress, time left), then its result. */
export function TaskCard({ task, notes }: { task: StudioTask; notes: NoteActions }) {
  const { result, error } = useContentTask(task.task_id);
  const label = t(kindSpec(task.kind).label);
  return (
    <article class="card task-card" aria-label={`${label}: ${task.note_title}`}>
      <header class="row wrap">
        <h3 class="task-title">
          {label} · <span class="muted">{task.note_title}</span>
        </h3>
        <button type="button" class="button button-ghost" onClick={() => removeStudioTask(task.task_id)}>
          {t("job.dismiss")}
        </button>
        <DeleteButton
          label={t("studio.deleteTask")}
          onDelete={() => contentApi.deleteTask(task.task_id)}
          onDeleted={() => removeStudioTask(task.task_id)}
        />
      </header>
      {result && <TaskState result={result} task={task} notes={notes} />}
      <ErrorNote error={error} byStatus={{ 404: t("studio.taskGone") }} />
    </article>
  );
}

function TaskState({
  result,
  task,
  notes,
}: {
  result: ContentTaskResult;
  task: StudioTask;
  notes: NoteActions;
}) {
  const view = taskView(result);
  switch (view.phase) {
    case "waiting":
      return (
        <p class="status" aria-live="polite">
          {t("job.queued")}
        </p>
      );
    case "working":
      return (
        <div class="job-progress">
          <p class="status" aria-live="polite">
            {stepText(view.step)}
          </p>
          <progress
            max={100}
            value={view.percent ?? undefined}
            aria-label={t("job.progressLabel")}
            aria-valuetext={view.percent === null ? t("job.progressUnknown") : `${view.percent}%`}
          />
          <p class="muted small">
            {view.percent !== null && `${view.percent}%`}
            {view.etaSec !== null && ` · ${t("studio.eta", { eta: formatClock(view.etaSec) })}`}
          </p>
        </div>
      );
    case "done":
      return <TaskResult view={view} task={task} notes={notes} />;
    case "failed":
      // The error_key in words; the server's own detail after it.
      return (
        <div class="note note-error" role="alert">
          <p class="status status-failed">
            {t("studio.failed", { reason: errorKeyText(view.errorKey) ?? view.error })}
          </p>
          {view.message && <p class="muted small">{view.message}</p>}
        </div>
      );
  }
}
