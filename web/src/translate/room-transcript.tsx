import { useState } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import { translationApi } from "../api/client.ts";
import { t } from "../i18n/i18n.ts";
import { download } from "../ui/download.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageName } from "../ui/language-name.ts";

type Choice = "spoken" | "theirs" | "both";
const FORMATS = ["txt", "srt", "vtt", "json"] as const;
const TYPES: Record<(typeof FORMATS)[number], string> = {
  txt: "text/plain",
  srt: "application/x-subrip",
  vtt: "text/vtt",
  json: "application/json",
};

/**
 * The room creator's transcript of a room (GET /api/v1/session/{id}/transcript with this console's
 * key): downloads as spoken, in the other language, or both, and a note of it for the Studio.
 */
export function RoomTranscript({ id, mine, theirs }: { id: string; mine: string; theirs: string }) {
  const [choice, setChoice] = useState<Choice>("both");
  const [error, setError] = useState<unknown>(null);
  const [noteMade, setNoteMade] = useState(false);
  const query =
    choice === "spoken"
      ? {}
      : { language: theirs, bilingual: choice === "both" ? ("true" as const) : ("false" as const) };

  const save = async (format: (typeof FORMATS)[number]) => {
    setError(null);
    try {
      const text = await translationApi.transcript(id, { format, ...query });
      download(new Blob([text], { type: TYPES[format] }), `conversation-${id.slice(0, 8)}.${format}`);
    } catch (caught) {
      setError(caught);
    }
  };
  const makeNote = async () => {
    setError(null);
    try {
      await translationApi.transcriptNote(id, choice === "spoken" ? {} : { language: theirs });
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
        <option value="theirs">{t("rooms.inLanguage", { language: languageName(theirs) })}</option>
        <option value="both">
          {t("rooms.bilingual", { mine: languageName(mine), theirs: languageName(theirs) })}
        </option>
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
