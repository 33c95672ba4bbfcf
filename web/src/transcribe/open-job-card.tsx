import { useEffect, useRef } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import { t } from "../i18n/i18n.ts";
import { JobProgress } from "../jobs/job-progress.tsx";
import { type OpenJob, removeOpenJob } from "../jobs/open-jobs.ts";
import { useTask } from "../jobs/use-task.ts";
import { ErrorNote } from "../ui/error-note.tsx";

/**
 * One job this browser started, watched live. `onDone` (the job just submitted here) opens it when it
 * finishes; the others wait with a link until the user opens or dismisses them.
 */
export function OpenJobCard({ job, onDone }: { job: OpenJob; onDone: (() => void) | null }) {
  const { status, error, processingSince } = useTask(job.task_id);
  const finished = status?.status === "done";
  const opened = useRef(false);
  useEffect(() => {
    if (!finished || !onDone || opened.current) return;
    opened.current = true;
    onDone();
  }, [finished, onDone]);
  return (
    <article class="card job-card" aria-label={job.source}>
      <header class="row">
        <h3 class="job-source">{job.source}</h3>
        <a class="button button-secondary" href={consolePath("job", { id: job.task_id })}>
          {t("job.open")}
        </a>
        <button type="button" class="button button-ghost" onClick={() => removeOpenJob(job.task_id)}>
          {t("job.dismiss")}
        </button>
      </header>
      {status && (
        <JobProgress status={status} durationSec={job.duration_sec} processingSince={processingSince} />
      )}
      <ErrorNote error={error} />
    </article>
  );
}
