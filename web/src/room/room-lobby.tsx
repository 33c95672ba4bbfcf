import { useState } from "preact/hooks";
import type { LanguagesResponse, SessionDetails } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { languageName } from "../ui/language-name.ts";
import { roomCloseText } from "./close-text.ts";
import type { RoomState } from "./room-connection.ts";

/** Before joining (or after the room closed the connection): which language you speak, then Join. */
export function RoomLobby(props: {
  session: SessionDetails;
  languages: LanguagesResponse | null;
  language: string;
  lastClose: Extract<RoomState, { kind: "closed" }> | null;
  hasHistory: boolean;
  onJoin: (language: string) => void;
}) {
  const { session, languages, lastClose } = props;
  const [choice, setChoice] = useState(props.language);
  const listed: [string, string][] = languages?.supported_languages ?? [
    [session.user_a_lang, ""],
    [session.user_a_translate, ""],
  ];
  const options = listed.some(([code]) => code === choice)
    ? listed
    : [[choice, ""] as [string, string], ...listed];
  return (
    <>
      <h1>{t("room.title")}</h1>
      <form
        class="card stack room-lobby"
        onSubmit={(event) => {
          event.preventDefault();
          props.onJoin(choice);
        }}
      >
        <p>
          {t("room.invited", {
            first: languageName(session.user_a_lang),
            second: languageName(session.user_a_translate),
          })}
        </p>
        {lastClose && (
          <p class="note note-warn" role="alert">
            {roomCloseText(lastClose.code, lastClose.reason)}
          </p>
        )}
        <div class="field">
          <label for="room-language">{t("room.yourLanguage")}</label>
          <select
            id="room-language"
            value={choice}
            onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}
          >
            {options.map(([code, name]) => (
              <option key={code} value={code}>
                {languageName(code, name)}
              </option>
            ))}
          </select>
        </div>
        <p class="muted small">{t("room.micHint")}</p>
        <button type="submit" class="button button-large">
          {lastClose || props.hasHistory ? t("room.rejoin") : t("room.join")}
        </button>
      </form>
    </>
  );
}
