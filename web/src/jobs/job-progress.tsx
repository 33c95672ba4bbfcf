import { useEffect, useState } from "preact/hooks";
import type { TaskStatusResponse } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { formatClock } from "../ui/format.ts";
import { estimateJob } from "./estimate.ts";
import { recentProcessingRatio } from "./use-task.ts";

/**
 * A running job's state in words and a bar: place in line while queued, progress (the node's once it
 * reports, estimated before) and time left while processing (estimate.ts), the error once failed.
 */
export function JobProgress(props: {
  status: TaskStatusResponse;
  durationSec: number | null;
  processingSince: number | null;
}) {
  const { status, durationSec, processingSince } = props;
  const [ratio, setRatio] = useState<number | null>(null);
  const [now, setNow] = useState(performance.now());
  useEffect(() => {
    void recentProcessingRatio().then(setRatio);
  }, []);
  useEffect(() => {
    if (status.status === "done" || status.status === "failed") return;
    const timer = setInterval(() => setNow(performance.now()), 500);
    return () => clearInterval(timer);
  }, [status.status]);

  const estimate = estimateJob({
    status,
    durationSec,
    processingRatio: ratio,
    processingForSec: processingSince === null ? 0 : (now - processingSince) / 1000,
  });
  const queue = status.queue;
  const line =
    status.status === "queued"
      ? queue?.position
        ? t("job.queuedAt", { position: queue.position, queued: queue.queued, processing: queue.processing })
        : t("job.queued")
      : status.status === "processing"
        ? t("job.processing")
        : status.status === "done"
          ? t("job.done")
          : t("job.failed", { error: status.error ?? "" });
  const percent = estimate.progress === null ? null : Math.round(estimate.progress * 100);
  return (
    <div class="job-progress">
      <p class={`status status-${status.status}`} aria-live="polite">
        {line}
      </p>
      {status.status !== "failed" && (
        <progress
          max={100}
          value={percent ?? undefined}
          aria-label={t("job.progressLabel")}
          aria-valuetext={percent === null ? t("job.progressUnknown") : `${percent}%`}
        />
      )}
      {estimate.etaSec !== null && status.status !== "done" && (
        <p class="muted">
          {t("job.eta", { eta: formatClock(estimate.etaSec) })}
          {percent !== null && status.status === "processing" ? ` · ${percent}%` : ""}
        </p>
      )}
    </div>
  );
}
