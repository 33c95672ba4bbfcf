import { t } from "../i18n/i18n.ts";
import type { TimelineItem } from "../translate/timeline.ts";
import { languageName, languageNameInText } from "../ui/language-name.ts";
import { latestHeard } from "./room-view.ts";
import type { TranslationAudio } from "./translation-audio.ts";

/**
 * A listener's room on a phone: the latest translation in large type (who said it, and the original
 * words small under it), the language to read in (changing it goes on in the same place), and Read
 * aloud, which speaks each translation as it comes (the room's `translation_audio`, played in order)
 * and shows the text being read.
 */
export function ListenerView(props: {
  items: readonly TimelineItem[];
  language: string;
  languages: readonly [string, string][];
  onLanguage: (language: string) => void;
  readAloud: boolean;
  onReadAloud: (on: boolean) => void;
  reading: TranslationAudio | null;
}) {
  const latest = latestHeard(props.items);
  return (
    <section class="listener" aria-labelledby="listener-latest-title">
      <div class="listener-bar">
        <label class="listener-language">
          <span>{t("room.yourLanguage")}</span>
          <select
            value={props.language}
            onChange={(e) => props.onLanguage((e.target as HTMLSelectElement).value)}
          >
            {props.languages.map(([code, name]) => (
              <option key={code} value={code}>
                {languageName(code, name)}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class={`button listener-read ${props.readAloud ? "" : "button-secondary"}`}
          aria-pressed={props.readAloud}
          onClick={() => props.onReadAloud(!props.readAloud)}
        >
          {t("room.readAloud")}
        </button>
      </div>
      <h2 id="listener-latest-title" class="visually-hidden">
        {t("room.latest")}
      </h2>
      <div class="listener-latest" aria-live="polite">
        {latest ? (
          <>
            <p class="listener-who">
              {latest.speakerName
                ? t("room.named", { name: latest.speakerName, language: languageName(latest.language) })
                : t("room.them", { language: languageNameInText(latest.language) })}
            </p>
            <p class="listener-text" lang={latest.translationLanguage}>
              {latest.translation}
            </p>
            {latest.translation !== latest.original && (
              <p class="listener-original muted" lang={latest.language}>
                {latest.original}
              </p>
            )}
          </>
        ) : (
          <p class="muted">{t("room.latestEmpty")}</p>
        )}
      </div>
      {props.readAloud && props.reading && (
        <p class="listener-reading" role="status">
          <span class="muted small">{t("room.readingAloud")}</span>{" "}
          <span lang={props.reading.language}>{props.reading.text}</span>
        </p>
      )}
    </section>
  );
}
