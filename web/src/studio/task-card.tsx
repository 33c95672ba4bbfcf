import { contentApi } from "../api/client.ts";
import { errorKeyText } from "../api/errors.ts";
import type { ContentTaskResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { en, type MessageKey } from "../i18n/messages.ts";
import { DeleteButton } from "../ui/delete-button.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";
import { removeStudioTask, type StudioTask } from "./studio-tasks.ts";
import { inlinePreviewUrl, type TaskView, taskView } from "./task-view.ts";
import { useContentTask } from "./use-content-task.ts";

const KIND_LABEL = {
  short: "studio.kind.short",
  audio: "studio.kind.audio",
  quiz: "studio.kind.quiz",
  slide: "studio.kind.slide",
} as const satisfies Record<StudioTask["kind"], MessageKey>;

/** A running step in words ("Rendering the video"); the step's own name for one this console does not know. */
function stepText(step: string | null): string {
  const key = `studio.step.${step}`;
  return step && Object.hasOwn(en, key) ? t(key as MessageKey) : (step ?? t("studio.working"));
}

/** One content task this browser started: where it stands (step, progress, time left), then its result. */
export function TaskCard({ task }: { task: StudioTask }) {
  const { result, error } = useContentTask(task.task_id);
  return (
    <article class="card task-card" aria-label={`${t(KIND_LABEL[task.kind])}: ${task.note_title}`}>
      <header class="row wrap">
        <h3 class="task-title">
          {t(KIND_LABEL[task.kind])} · <span class="muted">{task.note_title}</span>
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
      {result && <TaskState result={result} task={task} />}
      <ErrorNote error={error} byStatus={{ 404: t("studio.taskGone") }} />
    </article>
  );
}

function TaskState({ result, task }: { result: ContentTaskResult; task: StudioTask }) {
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
      return <TaskResult view={view} task={task} />;
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

function TaskResult({ view, task }: { view: Extract<TaskView, { phase: "done" }>; task: StudioTask }) {
  const name = task.note_title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "voxedge";
  return (
    <div class="stack task-result">
      <p class="status status-done">
        {t("job.done")}
        {view.durationSec ? ` · ${formatClock(view.durationSec)}` : ""}
      </p>
      {view.video && (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: the narration's words are burnt into the video as captions */}
          <video class="result-video" controls preload="metadata" playsInline src={view.video} />
          <a class="button button-secondary" href={view.video} download={`${name}.mp4`}>
            {t("studio.downloadVideo")}
          </a>
        </>
      )}
      {view.audio && (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: an audio short has no caption track; its text is the note */}
          <audio class="result-audio" controls preload="metadata" src={view.audio} />
          <a class="button button-secondary" href={view.audio} download={`${name}.m4a`}>
            {t("studio.downloadAudio")}
          </a>
        </>
      )}
      {(view.pptx || view.pdf) && (
        <div class="row wrap">
          {view.pptx && (
            <a class="button button-secondary" href={view.pptx} download={`${name}.pptx`}>
              {t("studio.downloadPptx")}
            </a>
          )}
          {view.pdf && (
            <a class="button button-secondary" href={view.pdf} download={`${name}.pdf`}>
              {t("studio.downloadPdf")}
            </a>
          )}
        </div>
      )}
      {view.pdf && (
        <iframe
          class="pdf-preview"
          src={inlinePreviewUrl(view.pdf)}
          title={t("studio.pdfPreview")}
          loading="lazy"
        />
      )}
    </div>
  );
}
