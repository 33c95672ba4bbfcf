import type { LanguagesResponse } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { languageName, languageNameInText } from "../ui/language-name.ts";
import { type LanguagePair, swapped, translatesPair, withSource, withTarget } from "./pair.ts";

/**
 * The two languages of a translation, from the deployment's list, with a swap button between them.
 * Picking the other side's language swaps the two; a direction the deployment cannot translate is
 * flagged.
 */
export function LanguagePairPicker(props: {
  languages: LanguagesResponse;
  pair: LanguagePair;
  onChange: (pair: LanguagePair) => void;
}) {
  const { languages, pair, onChange } = props;
  const options = languages.supported_languages.map(([code, name]) => (
    <option key={code} value={code}>
      {languageName(code, name)}
    </option>
  ));
  return (
    <div class="stack-tight">
      <div class="language-pair">
        <div class="field">
          <label for="pair-source">{t("translate.source")}</label>
          <select
            id="pair-source"
            value={pair.source}
            onChange={(e) => onChange(withSource(pair, (e.target as HTMLSelectElement).value))}
          >
            {options}
          </select>
        </div>
        <button
          type="button"
          class="button button-secondary swap"
          onClick={() => onChange(swapped(pair))}
          aria-label={t("translate.swap")}
          title={t("translate.swap")}
        >
          <span aria-hidden="true">⇄</span>
        </button>
        <div class="field">
          <label for="pair-target">{t("translate.target")}</label>
          <select
            id="pair-target"
            value={pair.target}
            onChange={(e) => onChange(withTarget(pair, (e.target as HTMLSelectElement).value))}
          >
            {options}
          </select>
        </div>
      </div>
      {!translatesPair(languages, pair) && (
        <p class="note note-warn" role="status">
          {t("translate.pairMissing", {
            from: languageNameInText(pair.source),
            to: languageNameInText(pair.target),
          })}
        </p>
      )}
    </div>
  );
}
