import { t } from "../i18n/i18n.ts";
import { languageName } from "../ui/language-name.ts";
import type { Utterance } from "./timeline.ts";

/**
 * An utterance in both languages: the original, then the translation, each marked with its language.
 * One line when both are the same language; an interim's translation only when it came with one.
 */
export function UtteranceLines({ utterance }: { utterance: Utterance }) {
  const { language, translationLanguage, original, translation } = utterance;
  const sameLanguage = language === translationLanguage;
  return (
    <>
      <p class="line line-original" lang={language || undefined}>
        <span class="lang-tag">{language ? languageName(language) : t("translate.detecting")}</span>
        <span class="line-text">{original}</span>
      </p>
      {!sameLanguage && translation && (
        <p class="line line-translation" lang={translationLanguage}>
          <span class="lang-tag">{languageName(translationLanguage)}</span>
          <span class="line-text">{translation}</span>
        </p>
      )}
      {utterance.translationError && <p class="small error-text">{t("translate.notTranslated")}</p>}
    </>
  );
}
