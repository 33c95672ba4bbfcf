import { useState } from "preact/hooks";
import type { NAME_MAX_CHARS } from "../../../protocol/rooms.ts";
import type { LanguagesResponse, SessionDetails } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { languageName, languageNameInText } from "../ui/language-name.ts";
import { roomCloseText } from "./close-text.ts";
import type { JoinRole, RoomState } from "./room-connection.ts";

/** The longest display name the room takes (protocol/rooms.ts; copied: that module carries zod). */
const NAME_MAX = 64 satisfies typeof NAME_MAX_CHARS;

/** How a participant asks to join: its language, display name ("" for none) and role. */
export interface JoinChoice {
  language: string;
  name: string;
  role: JoinRole;
}

/** The languages a room offers to pick from: the deployment's, else the session's two. */
export function roomLanguageOptions(
  session: SessionDetails,
  languages: LanguagesResponse | null,
  current: string,
): [string, string][] {
  const listed: [string, string][] = languages?.supported_languages ?? [
    [session.user_a_lang, ""],
    [session.user_a_translate, ""],
  ];
  return listed.some(([code]) => code === current) ? listed : [[current, ""], ...listed];
}

/**
 * Before joining (or after the room closed the connection): which language you speak, your name, and
 * whether you speak or only listen; then Join.
 */
export function RoomLobby(props: {
  session: SessionDetails;
  languages: LanguagesResponse | null;
  initial: JoinChoice;
  lastClose: Extract<RoomState, { kind: "closed" }> | null;
  hasHistory: boolean;
  onJoin: (choice: JoinChoice) => void;
}) {
  const { session, languages, lastClose } = props;
  const [choice, setChoice] = useState(props.initial);
  const options = roomLanguageOptions(session, languages, choice.language);
  return (
    <>
      <h1>{t("room.title")}</h1>
      <form
        class="card stack room-lobby"
        onSubmit={(event) => {
          event.preventDefault();
          props.onJoin({ ...choice, name: choice.name.trim() });
        }}
      >
        <p>
          {t("room.invited", {
            first: languageNameInText(session.user_a_lang),
            second: languageNameInText(session.user_a_translate),
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
            value={choice.language}
            onChange={(e) => setChoice({ ...choice, language: (e.target as HTMLSelectElement).value })}
          >
            {options.map(([code, name]) => (
              <option key={code} value={code}>
                {languageName(code, name)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="room-name">{t("room.yourName")}</label>
          <input
            id="room-name"
            type="text"
            autocomplete="nickname"
            maxLength={NAME_MAX}
            value={choice.name}
            onInput={(e) => setChoice({ ...choice, name: (e.target as HTMLInputElement).value })}
          />
        </div>
        <fieldset class="field room-roles">
          <legend>{t("room.joinAs")}</legend>
          {(["speaker", "listener"] as const).map((role) => (
            <label key={role} class="room-role">
              <input
                type="radio"
                name="room-role"
                value={role}
                checked={choice.role === role}
                onChange={() => setChoice({ ...choice, role })}
              />
              {role === "speaker" ? t("room.asSpeaker") : t("room.asListener")}
            </label>
          ))}
        </fieldset>
        <p class="muted small">{t("room.micHint")}</p>
        <button type="submit" class="button button-large">
          {lastClose || props.hasHistory ? t("room.rejoin") : t("room.join")}
        </button>
      </form>
    </>
  );
}
