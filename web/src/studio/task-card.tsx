import { errorKeyText } from "../api/errors.ts";
import type { ContentTaskResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { en, type MessageKey } from "../i18n/messages.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";
import { removeStudioTask, type StudioTask } from "./studio-tasks.ts";
import { useContentTask } from "./use-content-task.ts";

const KIND_LABEL = {
  short: "studio.kind.short",
  audio: "studio.kind.audio",
  quiz: "studio.kind.quiz",
  slide: "studio.kind.slide",
} as const satisfies Record<StudioTask["kind"], MessageKey>;

/** A running step in words ("Rendering the video"); the step's own name for one this console does not know. */
function stepText(step: string | undefined): string {
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
      </header>
      {result && <TaskState result={result} task={task} />}
      <ErrorNote error={error} byStatus={{ 404: t("studio.taskGone") }} />
    </article>
  );
}

function TaskState({ result, task }: { result: ContentTaskResult; task: StudioTask }) {
  if (result.status === "PENDING") {
    return (
      <p class="status" aria-live="polite">
        {t("job.queued")}
      </p>
    );
  }
  if (result.status === "PROCESSING") {
    const percent = result.progress === undefined ? null : Math.round(result.progress);
    return (
      <div class="job-progress">
        <p class="status" aria-live="polite">
          {stepText(result.step)}
        </p>
        <progress
          max={100}
          value={percent ?? undefined}
          aria-label={t("job.progressLabel")}
          aria-valuetext={percent === null ? t("job.progressUnknown") : `${percent}%`}
        />
        <p class="muted small">
          {percent !== null && `${percent}%`}
          {result.estimated_time !== undefined &&
            ` · ${t("studio.eta", { eta: formatClock(result.estimated_time) })}`}
        </p>
      </div>
    );
  }
  if (result.status === "SUCCESS") return <TaskResult data={result.data} task={task} />;
  // FAILURE (or the spec's FAIL): the error_key in words, the server's detail after it.
  const failure = result as { error?: string; error_key?: string; message?: string };
  return (
    <div class="note note-error" role="alert">
      <p class="status status-failed">
        {t("studio.failed", { reason: errorKeyText(failure.error_key) ?? failure.error ?? "" })}
      </p>
      {failure.message && <p class="muted small">{failure.message}</p>}
    </div>
  );
}

function TaskResult({
  data,
  task,
}: {
  data: Extract<ContentTaskResult, { status: "SUCCESS" }>["data"];
  task: StudioTask;
}) {
  const name = task.note_title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "voxedge";
  return (
    <div class="stack task-result">
      <p class="status status-done">
        {t("job.done")}
        {data.duration ? ` · ${formatClock(data.duration)}` : ""}
      </p>
      {data.video_url && (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: the narration's words are burnt into the video as captions */}
          <video class="result-video" controls preload="metadata" playsInline src={data.video_url} />
          <a class="button button-secondary" href={data.video_url} download={`${name}.mp4`}>
            {t("studio.downloadVideo")}
          </a>
        </>
      )}
      {data.audio_url && !data.video_url && (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: an audio short has no caption track; its text is the note */}
          <audio class="result-audio" controls preload="metadata" src={data.audio_url} />
          <a class="button button-secondary" href={data.audio_url} download={`${name}.m4a`}>
            {t("studio.downloadAudio")}
          </a>
        </>
      )}
      {(data.slide_url || data.slide_pdf_url) && (
        <>
          <div class="row wrap">
            {data.slide_url && (
              <a class="button button-secondary" href={data.slide_url} download={`${name}.pptx`}>
                {t("studio.downloadPptx")}
              </a>
            )}
            {data.slide_pdf_url && (
              <a class="button button-secondary" href={data.slide_pdf_url} download={`${name}.pdf`}>
                {t("studio.downloadPdf")}
              </a>
            )}
          </div>
          {data.slide_pdf_url && (
            <iframe
              class="pdf-preview"
              src={data.slide_pdf_url}
              title={t("studio.pdfPreview")}
              loading="lazy"
            />
          )}
        </>
      )}
    </div>
  );
}
