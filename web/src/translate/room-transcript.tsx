import { useState } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import { translationApi } from "../api/client.ts";
import { t } from "../i18n/i18n.ts";
import { download } from "../ui/download.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageNameInText } from "../ui/language-name.ts";

const FORMATS = ["txt", "srt", "vtt", "json"] as const;
const TYPES: Record<(typeof FORMATS)[number], string> = {
  txt: "text/plain",
  srt: "application/x-subrip",
  vtt: "text/vtt",
  json: "application/json",
};

/** A choice of the transcript's language: "spoken", "in:<code>" or "both:<code>" (original above it). */
type Choice = "spoken" | `in:${string}` | `both:${string}`;

/** The transcript route's query for a choice. */
function queryOf(choice: Choice): { language?: string; bilingual?: "true" | "false" } {
  if (choice === "spoken") return {};
  const [how, language] = choice.split(":") as [string, string];
  return { language, bilingual: how === "both" ? "true" : "false" };
}

/**
 * The room creator's transcript of a room (GET /api/v1/session/{id}/transcript with this console's
 * key): downloads as spoken, in one of the room's languages, or each final's original with that
 * language under it, and a note of it for the Studio. `languages`: the room's languages, the first
 * one chosen at first (both ways).
 */
export function RoomTranscript({ id, languages }: { id: string; languages: readonly string[] }) {
  const [choice, setChoice] = useState<Choice>(languages[0] ? `both:${languages[0]}` : "spoken");
  const [error, setError] = useState<unknown>(null);
  const [noteMade, setNoteMade] = useState(false);

  const save = async (format: (typeof FORMATS)[number]) => {
    setError(null);
    try {
      const text = await translationApi.transcript(id, { format, ...queryOf(choice) });
      download(new Blob([text], { type: TYPES[format] }), `conversation-${id.slice(0, 8)}.${format}`);
    } catch (caught) {
      setError(caught);
    }
  };
  const makeNote = async () => {
    setError(null);
    try {
      const { language } = queryOf(choice);
      await translationApi.transcriptNote(id, language ? { language } : {});
      setNoteMade(true);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <div class="stack room-transcript">
      <h3>{t("rooms.transcript")}</h3>
      <p class="muted small">{t("rooms.transcriptHint")}</p>
      <label for={`transcript-language-${id}`}>{t("rooms.transcriptLanguage")}</label>
      <select
        id={`transcript-language-${id}`}
        value={choice}
        onChange={(e) => setChoice((e.target as HTMLSelectElement).value as Choice)}
      >
        <option value="spoken">{t("rooms.asSpoken")}</option>
        {languages.map((code) => (
          <option key={`in:${code}`} value={`in:${code}`}>
            {t("rooms.inLanguage", { language: languageNameInText(code) })}
          </option>
        ))}
        {languages.map((code) => (
          <option key={`both:${code}`} value={`both:${code}`}>
            {t("rooms.originalAnd", { language: languageNameInText(code) })}
          </option>
        ))}
      </select>
      <div class="row wrap">
        {FORMATS.map((format) => (
          <button key={format} type="button" class="button button-secondary" onClick={() => save(format)}>
            {t("rooms.download", { format: format.toUpperCase() })}
          </button>
        ))}
        <button type="button" class="button button-ghost" onClick={makeNote}>
          {t("rooms.makeNote")}
        </button>
      </div>
      {noteMade && <a href={consolePath("studio")}>{t("rooms.noteMade")}</a>}
      <ErrorNote error={error} />
    </div>
  );
}
