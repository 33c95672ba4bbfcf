import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { consolePath } from "../../../protocol/console-routes.ts";
import { api, type TranscribeOptions } from "../api/client.ts";
import type { HealthResponse } from "../api/types.ts";
import type { UploadProgress } from "../api/upload.ts";
import { t } from "../i18n/i18n.ts";
import { addOpenJob, openJobs } from "../jobs/open-jobs.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { LanguageSelect } from "../ui/language-select.tsx";
import { FileDrop } from "./file-drop.tsx";
import { OpenJobCard } from "./open-job-card.tsx";
import { readDuration, submitFile } from "./submit.ts";
import { UploadBar } from "./upload-bar.tsx";

type Source = "file" | "url";
type Phase = { kind: "idle" } | { kind: "uploading"; progress: UploadProgress } | { kind: "enqueuing" };

/** The landing page: a file (presigned upload) or a URL in, a job out; running jobs listed below. */
export default function TranscribePage() {
  const { route } = useLocation();
  const [source, setSource] = useState<Source>("file");
  const [file, setFile] = useState<File | null>(null);
  const [fileUrl, setFileUrl] = useState("");
  const [options, setOptions] = useState<TranscribeOptions>({ language: "auto", context: "" });
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [error, setError] = useState<unknown>(null);
  const [health, setHealth] = useState<HealthResponse | null>(null);
  /**
   * Whether the default model can take file jobs now (/models `ready`), unknown until asked. Not
   * /health `asr_loaded`: that is the live engine, and a node may run file jobs only.
   */
  const [fileModelReady, setFileModelReady] = useState<boolean | null>(null);
  /** The job submitted from this page view: it opens by itself when done. */
  const [current, setCurrent] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    api.health().then(setHealth, () => setHealth(null));
    api.models().then(
      (reply) => setFileModelReady(reply.models.some((m) => m.id === reply.default_model && m.ready)),
      () => setFileModelReady(null),
    );
    return () => abort.current?.abort();
  }, []);

  const busy = phase.kind !== "idle";
  const canSubmit = !busy && (source === "file" ? file !== null : fileUrl.trim() !== "");

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!canSubmit) return;
    setError(null);
    const controller = new AbortController();
    abort.current = controller;
    try {
      let taskId: string;
      let durationSec: number | null = null;
      let name: string;
      if (source === "file" && file) {
        name = file.name;
        const duration = readDuration(file);
        setPhase({ kind: "uploading", progress: { loaded: 0, total: file.size, bytesPerSec: null } });
        taskId = await submitFile(
          file,
          options,
          (progress) => setPhase({ kind: "uploading", progress }),
          controller.signal,
        );
        durationSec = await duration;
      } else {
        name = fileUrl.trim();
        setPhase({ kind: "enqueuing" });
        taskId = (await api.transcribeUrl(name, options)).task_id;
      }
      addOpenJob({ task_id: taskId, source: name, duration_sec: durationSec, started_at: Date.now() });
      setCurrent(taskId);
      setFile(null);
      setFileUrl("");
    } catch (caught) {
      if (!(caught instanceof DOMException && caught.name === "AbortError")) setError(caught);
    } finally {
      setPhase({ kind: "idle" });
      abort.current = null;
    }
  };

  return (
    <>
      <h1>{t("transcribe.title")}</h1>
      <form class="card stack" onSubmit={submit}>
        <fieldset class="segmented" disabled={busy}>
          <legend class="visually-hidden">{t("transcribe.sourceLegend")}</legend>
          {(["file", "url"] as const).map((kind) => (
            <label key={kind} class={source === kind ? "selected" : ""}>
              <input
                type="radio"
                name="source"
                value={kind}
                checked={source === kind}
                onChange={() => setSource(kind)}
              />
              {t(kind === "file" ? "transcribe.fromFile" : "transcribe.fromUrl")}
            </label>
          ))}
        </fieldset>

        {source === "file" ? (
          <FileDrop file={file} onFile={setFile} disabled={busy} />
        ) : (
          <div class="field">
            <label for="file-url">{t("transcribe.url")}</label>
            <input
              id="file-url"
              type="url"
              inputMode="url"
              placeholder="https://example.com/talk.mp3"
              value={fileUrl}
              disabled={busy}
              onInput={(event) => setFileUrl((event.target as HTMLInputElement).value)}
            />
          </div>
        )}

        <div class="grid-2">
          <LanguageSelect
            id="language"
            value={options.language}
            onChange={(language) => setOptions({ ...options, language })}
          />
          <div class="field">
            <label for="context">{t("options.context")}</label>
            <input
              id="context"
              type="text"
              maxLength={2000}
              placeholder={t("options.contextHint")}
              value={options.context}
              onInput={(event) =>
                setOptions({ ...options, context: (event.target as HTMLInputElement).value })
              }
            />
          </div>
        </div>
        <p class="muted small">
          {t("options.speakers")}{" "}
          {health === null
            ? ""
            : health.mt_loaded
              ? t("options.translationOn", { model: health.mt_model || "VI↔EN" })
              : t("options.translationOff")}
        </p>
        {fileModelReady === false && <p class="note">{t("transcribe.noNode")}</p>}

        {phase.kind === "uploading" ? (
          <UploadBar progress={phase.progress} onCancel={() => abort.current?.abort()} />
        ) : (
          <button type="submit" class="button" disabled={!canSubmit}>
            {phase.kind === "enqueuing" ? t("transcribe.sending") : t("transcribe.submit")}
          </button>
        )}
        <ErrorNote error={error} />
      </form>

      {openJobs.value.length > 0 && (
        <section aria-labelledby="open-jobs-title">
          <h2 id="open-jobs-title">{t("transcribe.openJobs")}</h2>
          <ul class="stack plain-list">
            {openJobs.value.map((job) => (
              <li key={job.task_id}>
                <OpenJobCard
                  job={job}
                  onDone={
                    job.task_id === current ? () => route(consolePath("job", { id: job.task_id })) : null
                  }
                />
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
