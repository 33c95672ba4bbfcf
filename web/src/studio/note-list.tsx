import { useState } from "preact/hooks";
import { contentApi } from "../api/client.ts";
import type { Note, NoteSummary } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatDateTime } from "../ui/format.ts";
import { languageName } from "../ui/language-name.ts";

/**
 * This key's notes, newest first: each one can be opened (its whole text), chosen for the create form,
 * published to (or taken out of) the community, or deleted (after a second, confirming press).
 */
export function NoteList(props: {
  notes: readonly NoteSummary[];
  total: number;
  loading: boolean;
  selected: string | null;
  onSelect: (noteId: string) => void;
  onDeleted: (noteId: string) => void;
  onMore: () => void;
}) {
  const { notes, total, loading } = props;
  return (
    <section class="card" aria-labelledby="notes-title">
      <div class="row">
        <h2 id="notes-title">{t("studio.notes")}</h2>
        <span class="muted small" aria-live="polite">
          {loading ? t("history.loading") : t("studio.notesCount", { count: total })}
        </span>
      </div>
      {notes.length === 0 && !loading && <p class="muted">{t("studio.noNotes")}</p>}
      <ul class="plain-list notes">
        {notes.map((note) => (
          <NoteItem
            key={note.note_id}
            note={note}
            selected={props.selected === note.note_id}
            onSelect={() => props.onSelect(note.note_id)}
            onDeleted={() => props.onDeleted(note.note_id)}
          />
        ))}
      </ul>
      {notes.length < total && (
        <button type="button" class="button button-secondary" onClick={props.onMore} disabled={loading}>
          {t("studio.moreNotes")}
        </button>
      )}
    </section>
  );
}

function NoteItem(props: {
  note: NoteSummary;
  selected: boolean;
  onSelect: () => void;
  onDeleted: () => void;
}) {
  const { note } = props;
  const [full, setFull] = useState<Note | null>(null);
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [published, setPublished] = useState(note.community);
  const [error, setError] = useState<unknown>(null);

  const toggleOpen = async () => {
    if (open) return setOpen(false);
    setError(null);
    try {
      setFull(full ?? (await contentApi.note(note.note_id)));
      setOpen(true);
    } catch (caught) {
      setError(caught);
    }
  };
  const remove = async () => {
    if (!confirming) return setConfirming(true);
    setError(null);
    try {
      await contentApi.deleteNote(note.note_id);
      props.onDeleted();
    } catch (caught) {
      setConfirming(false);
      setError(caught);
    }
  };

  const togglePublished = async () => {
    setError(null);
    try {
      const changed = await (published ? contentApi.unpublishNote : contentApi.publishNote)(note.note_id);
      setPublished(changed.community);
    } catch (caught) {
      setError(caught);
    }
  };

  const textId = `note-text-${note.note_id}`;
  return (
    <li
      class={`note-item${props.selected ? " selected" : ""}`}
      aria-current={props.selected ? "true" : undefined}
    >
      <h3 class="note-title">{note.title}</h3>
      <p class="muted small">
        {formatDateTime(note.created_at)}
        {note.language ? ` · ${languageName(note.language)}` : ""}
        {` · ${t("studio.chars", { count: note.char_count })}`}
        {note.source_task_id ? ` · ${t("studio.fromTranscriptionTag")}` : ""}
        {published ? ` · ${t("studio.communityTag")}` : ""}
      </p>
      {open && full ? (
        <p id={textId} class="note-full">
          {full.content}
        </p>
      ) : (
        <p id={textId} class="note-excerpt">
          {note.excerpt}
        </p>
      )}
      <div class="row wrap">
        <button
          type="button"
          class="button button-secondary"
          onClick={props.onSelect}
          disabled={props.selected}
        >
          {props.selected ? t("studio.chosen") : t("studio.choose")}
        </button>
        <button
          type="button"
          class="button button-ghost"
          onClick={toggleOpen}
          aria-expanded={open}
          aria-controls={textId}
        >
          {open ? t("studio.closeNote") : t("studio.openNote")}
        </button>
        <button type="button" class="button button-ghost" onClick={togglePublished} aria-pressed={published}>
          {published ? t("studio.unpublish") : t("studio.publish")}
        </button>
        <button
          type="button"
          class={`button ${confirming ? "button-danger" : "button-ghost"}`}
          onClick={remove}
          onBlur={() => setConfirming(false)}
        >
          {confirming ? t("studio.confirmDelete") : t("studio.delete")}
        </button>
      </div>
      <ErrorNote error={error} />
    </li>
  );
}
