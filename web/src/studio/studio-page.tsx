import { useState } from "preact/hooks";
import "../styles/studio.css";
import { useLocation } from "preact-iso";
import { contentApi } from "../api/client.ts";
import type { CommunityNote, Note, NoteSummary } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { usePages } from "../ui/use-pages.ts";
import { CommunityList } from "./community-list.tsx";
import { type ChosenNote, CreateForm } from "./create-form.tsx";
import { NoteEditor } from "./note-editor.tsx";
import { NoteList } from "./note-list.tsx";
import { STUDIO_STORAGE_PREFIX } from "./studio-kinds.ts";
import { studioTasks } from "./studio-tasks.ts";
import { TaskCard } from "./task-card.tsx";
import type { NoteActions } from "./task-result.tsx";

const PAGE_SIZE = 20;
/** The note chosen for the create form, kept across reloads. */
const CHOSEN_KEY = `${STUDIO_STORAGE_PREFIX}note`;

function summaryOf(note: Note): NoteSummary {
  const { content, ...rest } = note;
  return { ...rest, excerpt: content.length > 200 ? `${content.slice(0, 200)}…` : content };
}

/**
 * /studio — content from notes: write or paste a note (or make one of a finished transcription),
 * then any kind of studio-kinds.ts from it (a short, a deck, flash cards, a podcast, a translation, …);
 * each task is followed to its result (its kind's previews, every file to download), also after a reload. Notes can be published to the
 * community, and a community note others published can be chosen instead of one's own. `?from=<task_id>` starts a note from
 * that transcription.
 */
export default function StudioPage() {
  const { query } = useLocation();
  const {
    items: notes,
    total,
    change,
    loading,
    error,
    load,
  } = usePages(async (skip) => {
    const page = await contentApi.notes({ limit: PAGE_SIZE, skip });
    return { items: page.notes, total: page.total };
  });
  const [chosen, setChosen] = useState<string | null>(() => localStorage.getItem(CHOSEN_KEY));
  /** A community note chosen for the create form (not one of the caller's, so not in `notes`). */
  const [communityNote, setCommunityNote] = useState<CommunityNote | null>(null);

  const choose = (noteId: string | null) => {
    setChosen(noteId);
    setCommunityNote(null);
    if (noteId) localStorage.setItem(CHOSEN_KEY, noteId);
    else localStorage.removeItem(CHOSEN_KEY);
  };
  const created = (note: Note) => {
    change(({ items, total }) => ({
      items: [summaryOf(note), ...items.filter((n) => n.note_id !== note.note_id)],
      total: total + 1,
    }));
    choose(note.note_id);
  };
  const deleted = (noteId: string) => {
    change(({ items, total }) => ({
      items: items.filter((n) => n.note_id !== noteId),
      total: Math.max(0, total - 1),
    }));
    if (chosen === noteId) choose(null);
  };

  // A translation made a note: the list reads it from the API (unless it has it), and it can be chosen.
  const notesActions: NoteActions = {
    onNoteMade: (noteId) => {
      if (!notes.some((n) => n.note_id === noteId)) void load(0);
    },
    onOpenNote: (noteId) => {
      choose(noteId);
      document.getElementById("notes-title")?.scrollIntoView({ behavior: "smooth" });
    },
  };

  const useCommunity = (note: CommunityNote) => {
    setChosen(null);
    localStorage.removeItem(CHOSEN_KEY);
    setCommunityNote(note);
  };
  const own = notes.find((n) => n.note_id === chosen);
  const note: ChosenNote | null = communityNote
    ? { ...communityNote, community: true }
    : own
      ? { ...own, community: false }
      : null;
  const tasks = studioTasks.value;
  return (
    <>
      <h1>{t("studio.title")}</h1>
      <p class="muted">{t("studio.intro")}</p>
      <div class="studio-layout">
        <div class="stack">
          <NoteEditor onCreated={created} fromTask={query.from ?? ""} />
          <ErrorNote error={error} />
          <NoteList
            notes={notes}
            total={total}
            loading={loading}
            selected={chosen}
            onSelect={choose}
            onDeleted={deleted}
            onMore={() => void load(notes.length)}
          />
          <CommunityList selected={communityNote?.note_id ?? null} onUse={useCommunity} />
        </div>
        <div class="stack">
          <CreateForm note={note} />
          {tasks.length > 0 && (
            <section aria-labelledby="studio-tasks-title">
              <h2 id="studio-tasks-title">{t("studio.tasks")}</h2>
              <ul class="stack plain-list">
                {tasks.map((task) => (
                  <li key={task.task_id}>
                    <TaskCard task={task} notes={notesActions} />
                  </li>
                ))}
              </ul>
            </section>
          )}
        </div>
      </div>
    </>
  );
}
