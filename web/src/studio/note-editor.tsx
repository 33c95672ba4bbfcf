import { useEffect, useState } from "preact/hooks";
import { api, contentApi } from "../api/client.ts";
import type { HistoryEntry, Note } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatDateTime, sourceName } from "../ui/format.ts";
import { STUDIO_STORAGE_PREFIX } from "./studio-kinds.ts";

/** The note being written, kept while typing so a reload loses nothing. */
const DRAFT_KEY = `${STUDIO_STORAGE_PREFIX}draft`;
interface Draft {
  title: string;
  content: string;
  language: string;
}
const EMPTY_DRAFT: Draft = { title: "", content: "", language: "" };

function readDraft(): Draft {
  try {
    return { ...EMPTY_DRAFT, ...(JSON.parse(localStorage.getItem(DRAFT_KEY) ?? "{}") as Partial<Draft>) };
  } catch {
    return EMPTY_DRAFT;
  }
}

/** A new note: written or pasted here, or made from a finished transcription. */
export function NoteEditor({ onCreated, fromTask }: { onCreated: (note: Note) => void; fromTask: string }) {
  const [source, setSource] = useState<"text" | "transcription">(fromTask ? "transcription" : "text");
  return (
    <section class="card stack" aria-labelledby="note-new-title">
      <h2 id="note-new-title">{t("studio.newNote")}</h2>
      <fieldset class="segmented">
        <legend class="visually-hidden">{t("studio.noteSource")}</legend>
        {(["text", "transcription"] as const).map((kind) => (
          <label key={kind} class={source === kind ? "selected" : ""}>
            <input
              type="radio"
              name="note-source"
              value={kind}
              checked={source === kind}
              onChange={() => setSource(kind)}
            />
            {t(kind === "text" ? "studio.fromText" : "studio.fromTranscription")}
          </label>
        ))}
      </fieldset>
      {source === "text" ? (
        <TextNote onCreated={onCreated} />
      ) : (
        <TranscriptionNote onCreated={onCreated} initial={fromTask} />
      )}
    </section>
  );
}

function TextNote({ onCreated }: { onCreated: (note: Note) => void }) {
  const [draft, setDraft] = useState<Draft>(readDraft);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => localStorage.setItem(DRAFT_KEY, JSON.stringify(draft)), [draft]);
  const edit = (part: Partial<Draft>) => setDraft((current) => ({ ...current, ...part }));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!draft.content.trim()) return;
    setSaving(true);
    setError(null);
    try {
      const note = await contentApi.createNote({
        content: draft.content,
        ...(draft.title.trim() ? { title: draft.title.trim() } : {}),
        ...(draft.language ? { language: draft.language } : {}),
      });
      setDraft(EMPTY_DRAFT);
      onCreated(note);
    } catch (caught) {
      setError(caught);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="stack" onSubmit={submit}>
      <div class="grid-2">
        <div class="field">
          <label for="note-title">{t("studio.noteTitle")}</label>
          <input
            id="note-title"
            type="text"
            maxLength={300}
            placeholder={t("studio.noteTitleHint")}
            value={draft.title}
            onInput={(e) => edit({ title: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="note-language">{t("studio.noteLanguage")}</label>
          <select
            id="note-language"
            value={draft.language}
            onChange={(e) => edit({ language: (e.target as HTMLSelectElement).value })}
          >
            <option value="">{t("options.languageAuto")}</option>
            <option value="en">English</option>
            <option value="vi">Tiếng Việt</option>
          </select>
        </div>
      </div>
      <div class="field">
        <label for="note-content">{t("studio.noteText")}</label>
        <textarea
          id="note-content"
          rows={8}
          maxLength={100_000}
          required
          value={draft.content}
          onInput={(e) => edit({ content: (e.target as HTMLTextAreaElement).value })}
        />
      </div>
      <div>
        <button type="submit" class="button" disabled={saving || !draft.content.trim()}>
          {saving ? t("studio.saving") : t("studio.saveNote")}
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

function TranscriptionNote({ onCreated, initial }: { onCreated: (note: Note) => void; initial: string }) {
  const [finished, setFinished] = useState<HistoryEntry[] | null>(null);
  const [taskId, setTaskId] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const abort = new AbortController();
    api.history({ limit: 20, skip: 0, status: "done" }, abort.signal).then(
      (page) => setFinished(page.jobs.filter((job) => job.result?.text?.trim())),
      () => setFinished([]),
    );
    return () => abort.abort();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const id = taskId.trim();
    if (!id) return;
    setSaving(true);
    setError(null);
    try {
      onCreated(await contentApi.createNote({ transcription_task_id: id }));
      setTaskId("");
    } catch (caught) {
      setError(caught);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form class="stack" onSubmit={submit}>
      {finished && finished.length > 0 && (
        <div class="field">
          <label for="note-transcription">{t("studio.pickTranscription")}</label>
          <select
            id="note-transcription"
            value={finished.some((job) => job.task_id === taskId) ? taskId : ""}
            onChange={(e) => setTaskId((e.target as HTMLSelectElement).value)}
          >
            <option value="">—</option>
            {finished.map((job) => (
              <option key={job.task_id} value={job.task_id}>
                {sourceName(job.params ?? null) || job.task_id.slice(0, 8)}
                {job.created_at ? ` · ${formatDateTime(job.created_at)}` : ""}
              </option>
            ))}
          </select>
        </div>
      )}
      <div class="field">
        <label for="note-task-id">{t("studio.taskId")}</label>
        <input
          id="note-task-id"
          type="text"
          class="code"
          spellcheck={false}
          value={taskId}
          onInput={(e) => setTaskId((e.target as HTMLInputElement).value)}
        />
      </div>
      <div>
        <button type="submit" class="button" disabled={saving || !taskId.trim()}>
          {saving ? t("studio.saving") : t("studio.makeNote")}
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
