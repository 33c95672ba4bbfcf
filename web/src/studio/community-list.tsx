import { contentApi } from "../api/client.ts";
import type { CommunityNote } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatDateTime } from "../ui/format.ts";
import { languageName } from "../ui/language-name.ts";
import { usePages } from "../ui/use-pages.ts";

const PAGE_SIZE = 20;

/**
 * The community tab: notes others published, most recent first; "Use this note" chooses one for the
 * create form, which then sends community=true (the content made is the caller's, the note stays theirs).
 */
export function CommunityList(props: { selected: string | null; onUse: (note: CommunityNote) => void }) {
  const {
    items: notes,
    total,
    loading,
    error,
    load,
  } = usePages(async (skip) => {
    const page = await contentApi.communityNotes({ limit: PAGE_SIZE, skip });
    return { items: page.notes, total: page.total };
  });

  return (
    <section class="card" aria-labelledby="community-title">
      <h2 id="community-title">{t("studio.community")}</h2>
      <p class="muted small">{t("studio.communityIntro")}</p>
      <ErrorNote error={error} />
      {notes.length === 0 && !loading && <p class="muted">{t("studio.noCommunity")}</p>}
      <ul class="plain-list notes">
        {notes.map((note) => (
          <li
            key={note.note_id}
            class={`note-item${props.selected === note.note_id ? " selected" : ""}`}
            aria-current={props.selected === note.note_id ? "true" : undefined}
          >
            <h3 class="note-title">{note.title}</h3>
            <p class="muted small">
              {t("studio.byPublisher", { name: note.publisher })}
              {` · ${formatDateTime(note.published_at)}`}
              {note.language ? ` · ${languageName(note.language)}` : ""}
            </p>
            <p class="note-excerpt">{note.excerpt}</p>
            <button
              type="button"
              class="button button-secondary"
              onClick={() => props.onUse(note)}
              disabled={props.selected === note.note_id}
            >
              {props.selected === note.note_id ? t("studio.chosen") : t("studio.useCommunity")}
            </button>
          </li>
        ))}
      </ul>
      {notes.length < total && (
        <button
          type="button"
          class="button button-secondary"
          onClick={() => void load(notes.length)}
          disabled={loading}
        >
          {t("studio.moreCommunity")}
        </button>
      )}
    </section>
  );
}
