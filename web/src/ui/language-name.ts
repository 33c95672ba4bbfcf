import { LANGUAGES, normalizeLanguage } from "../../../protocol/languages.ts";
import { locale } from "../i18n/i18n.ts";

let cached: { locale: string; names: Intl.DisplayNames | null } | null = null;

/**
 * A language code's name in the UI language ("es" → "Spanish", or "tiếng Tây Ban Nha"), from the
 * browser's own table; `fallback` (the API's English name) or the code where it has none.
 *
 * @example languageName("es") // "Spanish"
 */
export function languageName(code: string, fallback?: string): string {
  if (cached?.locale !== locale()) {
    cached = {
      locale: locale(),
      names:
        typeof Intl.DisplayNames === "function"
          ? new Intl.DisplayNames([locale()], { type: "language" })
          : null,
    };
  }
  const known = fallback || LANGUAGES[code as keyof typeof LANGUAGES] || code;
  try {
    const name = cached.names?.of(code);
    return name && name !== code ? name : known;
  } catch {
    return known;
  }
}

/**
 * A language's name inside running text. Vietnamese writes the name's "tiếng" in lower case there
 * ("Bạn nói tiếng Anh."); the browser's table gives it as it opens a label ("Tiếng Anh"), which is
 * what menus, tags and a summary line starting with the language show.
 *
 * @example languageNameInText("en") // "tiếng Anh" in a Vietnamese console, "English" in an English one
 */
export function languageNameInText(code: string, fallback?: string): string {
  const name = languageName(code, fallback);
  return locale() === "vi-VN" ? name.replace(/^Tiếng /u, "tiếng ") : name;
}

/**
 * A result's `language` (the API writes the English name, "Vietnamese") in the UI language; a name
 * the language table does not know stays as the API wrote it.
 *
 * @example resultLanguageName("Spanish") // "tiếng Tây Ban Nha" in a Vietnamese console
 */
export function resultLanguageName(name: string): string {
  const choice = normalizeLanguage(name);
  return choice.kind === "language" ? languageName(choice.code, name) : name;
}
