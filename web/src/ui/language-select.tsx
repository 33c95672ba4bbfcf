import { LANGUAGES } from "../../../protocol/languages.ts";
import { locale, t } from "../i18n/i18n.ts";
import { languageName } from "./language-name.ts";

/** The languages people here pick most, first in the list; the rest follow by name. */
const FIRST = ["vi", "en", "ja", "ko", "zh"];

/** A labelled select of the spoken language: auto-detect, then every language whisper knows. */
export function LanguageSelect(props: { id: string; value: string; onChange: (code: string) => void }) {
  const rest = Object.keys(LANGUAGES)
    .filter((code) => !FIRST.includes(code))
    .map((code) => ({ code, label: languageName(code) }))
    .sort((a, b) => a.label.localeCompare(b.label, locale()));
  return (
    <div class="field">
      <label for={props.id}>{t("options.language")}</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}
      >
        <option value="auto">{t("options.languageAuto")}</option>
        {FIRST.map((code) => (
          <option key={code} value={code}>
            {languageName(code)}
          </option>
        ))}
        <option disabled>──────</option>
        {rest.map(({ code, label }) => (
          <option key={code} value={code}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
