import { useEffect, useMemo } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { consolePath } from "../../../protocol/console-routes.ts";
import { api } from "../api/client.ts";
import type { TaskStatusResponse, TranscriptionResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { JobProgress } from "../jobs/job-progress.tsx";
import { findOpenJob, removeOpenJob } from "../jobs/open-jobs.ts";
import { useTask } from "../jobs/use-task.ts";
import { DeleteButton } from "../ui/delete-button.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock, sourceName } from "../ui/format.ts";
import { resultLanguageName } from "../ui/language-name.ts";
import { CurlSnippet } from "./curl-snippet.tsx";
import { Downloads } from "./downloads.tsx";
import { SpeakerNames } from "./speaker-names.tsx";
import { enrolledNames, speakersOf, useSpeakerNames } from "./speakers.ts";
import { Transcript } from "./transcript.tsx";

/** /jobs/:id — a job's live state until it is done, then its transcript, player, downloads and curl. */
export default function JobPage() {
  const { params } = useRoute();
  const taskId = params.id ?? "";
  const { status, error, processingSince } = useTask(taskId);
  const { route } = useLocation();
  // Read once per job: opening a finished job removes it from the open list, its name stays on the page.
  const openJob = useMemo(() => findOpenJob(taskId), [taskId]);
  const done = status?.status === "done";
  // What the user sent: remembered by this browser, else the file name the stored audio keeps.
  const source = openJob?.source ?? sourceName({ object_key: status?.result?.audio_url });
  useEffect(() => {
    if (done) removeOpenJob(taskId);
  }, [done, taskId]);

  return (
    <>
      <h1 class="job-title">{source || t("job.title", { id: taskId.slice(0, 8) })}</h1>
      <p class="muted small code">{taskId}</p>
      {status && (
        <div class="row wrap">
          <DeleteButton
            label={t("task.deleteJob")}
            onDelete={() => api.deleteJob(taskId)}
            onDeleted={() => {
              removeOpenJob(taskId);
              route(consolePath("history"));
            }}
          />
        </div>
      )}
      <ErrorNote error={error} />
      {status && !done && (
        <div class="card">
          <JobProgress
            status={status}
            durationSec={openJob?.duration_sec ?? null}
            processingSince={processingSince}
          />
        </div>
      )}
      {status?.result && done && (
        <JobResult status={status} result={status.result} baseName={baseName(source, taskId)} />
      )}
      {status && <CurlSnippet taskId={taskId} />}
    </>
  );
}

function baseName(source: string | undefined, taskId: string): string {
  const last = source
    ?.split(/[/?#]/)
    .filter(Boolean)
    .at(-1)
    ?.replace(/\.[^.]+$/, "");
  return last || `transcript-${taskId.slice(0, 8)}`;
}

function JobResult(props: { status: TaskStatusResponse; result: TranscriptionResult; baseName: string }) {
  const { result } = props;
  const [given, rename] = useSpeakerNames(props.status.task_id);
  // an enrolled voice's name (known_speakers) until the user gives the speaker another
  const names = { ...enrolledNames(result.segments), ...given };
  const speakers = speakersOf(result.segments);
  return (
    <>
      <p class="muted">
        {t("transcript.summary", {
          language: resultLanguageName(result.language),
          duration: formatClock(result.duration_sec),
          segments: t("transcript.segmentCount", { count: result.segments.length }),
          speakers: t("transcript.speakerCount", { count: speakers.length }),
        })}
      </p>
      <Downloads result={result} baseName={props.baseName} speakerNames={names} />
      <p>
        <a href={`${consolePath("studio")}?from=${encodeURIComponent(props.status.task_id)}`}>
          {t("transcript.toStudio")}
        </a>
      </p>
      <SpeakerNames
        speakers={speakers}
        names={names}
        onRename={rename}
        {...(result.audio_url && { voices: { audioUrl: result.audio_url, segments: result.segments } })}
      />
      <Transcript result={result} speakerNames={names} />
    </>
  );
}
