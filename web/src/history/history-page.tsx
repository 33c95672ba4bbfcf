import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { consolePath } from "../../../protocol/console-routes.ts";
import { api } from "../api/client.ts";
import type { JobStatus, HistoryPage as Page } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { removeOpenJob } from "../jobs/open-jobs.ts";
import { DeleteButton } from "../ui/delete-button.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock, formatDateTime, sourceName } from "../ui/format.ts";
import { resultLanguageName } from "../ui/language-name.ts";

const PAGE_SIZE = 20;
const STATUSES: readonly JobStatus[] = ["queued", "processing", "done", "failed"];

/** /history — this key's jobs, newest first, filtered by status and paged; the filter and page live in the URL. */
export default function HistoryPage() {
  const { query, route } = useLocation();
  const status = STATUSES.includes(query.status as JobStatus) ? (query.status as JobStatus) : undefined;
  const pageIndex = Math.max(0, Number.parseInt(query.page ?? "1", 10) - 1 || 0);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  // Bumped after a delete: the page is read again (the total and the next job moving up change).
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    setError(null);
    api.history({ limit: PAGE_SIZE, skip: pageIndex * PAGE_SIZE, status }, abort.signal).then(
      (next) => {
        setPage(next);
        setLoading(false);
      },
      (caught: unknown) => {
        if (abort.signal.aborted) return;
        setError(caught);
        setLoading(false);
      },
    );
    return () => abort.abort();
  }, [status, pageIndex, reloads]);

  const go = (next: { status?: JobStatus; page: number }) => {
    const params = new URLSearchParams();
    if (next.status) params.set("status", next.status);
    if (next.page > 1) params.set("page", String(next.page));
    const search = params.toString();
    route(`${consolePath("history")}${search ? `?${search}` : ""}`);
  };

  const total = page?.total ?? 0;
  const first = total === 0 ? 0 : pageIndex * PAGE_SIZE + 1;
  const last = Math.min(total, (pageIndex + 1) * PAGE_SIZE);
  return (
    <>
      <h1>{t("history.title")}</h1>
      <div class="row wrap toolbar">
        <div class="field inline">
          <label for="status-filter">{t("history.filter")}</label>
          <select
            id="status-filter"
            value={status ?? ""}
            onChange={(event) => {
              const value = (event.target as HTMLSelectElement).value as JobStatus | "";
              go({ status: value || undefined, page: 1 });
            }}
          >
            <option value="">{t("history.all")}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}` as const)}
              </option>
            ))}
          </select>
        </div>
        <p class="muted" aria-live="polite">
          {loading ? t("history.loading") : t("history.range", { first, last, total })}
        </p>
      </div>
      <ErrorNote error={error} />
      {page && page.jobs.length === 0 && !loading && <p class="note">{t("history.empty")}</p>}
      {page && page.jobs.length > 0 && (
        <ul class="history plain-list" aria-busy={loading}>
          {page.jobs.map((job) => (
            <li key={job.task_id} class="history-item">
              <a href={consolePath("job", { id: job.task_id })} class="history-link">
                <span class="history-name">{sourceName(job.params ?? null) || job.task_id.slice(0, 8)}</span>
                <span class={`badge status-${job.status}`}>{t(`status.${job.status}` as const)}</span>
              </a>
              <p class="muted small">
                {job.created_at ? formatDateTime(job.created_at) : ""}
                {job.result
                  ? ` · ${resultLanguageName(job.result.language)} · ${formatClock(job.result.duration_sec)}`
                  : ""}
              </p>
              {job.result?.text && <p class="history-text">{job.result.text.slice(0, 160)}</p>}
              {job.error && <p class="history-text error-text">{job.error}</p>}
              <div class="row wrap">
                <DeleteButton
                  label={t("task.deleteJob")}
                  onDelete={() => api.deleteJob(job.task_id)}
                  onDeleted={() => {
                    removeOpenJob(job.task_id);
                    setReloads((n) => n + 1);
                  }}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
      <nav class="row pager" aria-label={t("history.pages")}>
        <button
          type="button"
          class="button button-secondary"
          disabled={pageIndex === 0 || loading}
          onClick={() => go({ status, page: pageIndex })}
        >
          {t("history.previous")}
        </button>
        <button
          type="button"
          class="button button-secondary"
          disabled={last >= total || loading}
          onClick={() => go({ status, page: pageIndex + 2 })}
        >
          {t("history.next")}
        </button>
      </nav>
    </>
  );
}
