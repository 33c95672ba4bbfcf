import { signal } from "@preact/signals";
import { formatMessage, type Message } from "./format.ts";
import { en, type MessageKey, vi } from "./messages.ts";

/**
 * The console's UI language: a small table per language (messages.ts), chosen by the user, by default
 * from the browser's languages. Components call `t()` while rendering; reading `lang` there makes them
 * re-render on a switch.
 */
export type Lang = "en" | "vi";
export const LANGS: readonly Lang[] = ["en", "vi"];
const TABLES: Record<Lang, Record<MessageKey, Message>> = { en, vi };
const STORAGE_KEY = "voxedge.lang";

function initialLang(): Lang {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved === "en" || saved === "vi") return saved;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of preferred) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "vi" || base === "en") return base;
  }
  return "en";
}

export const lang = signal<Lang>(initialLang());
document.documentElement.lang = lang.value;

/** Switches the UI language and remembers it. */
export function setLang(next: Lang): void {
  lang.value = next;
  localStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
}

/**
 * The message `key` in the current language, `{name}` placeholders filled from `params` (and a plural
 * message's form chosen by `params.count`: format.ts).
 *
 * @example t("upload.sent", { sent: "1 MB", total: "4 MB" }) // "1 MB of 4 MB"
 */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return formatMessage(TABLES[lang.value][key], params, locale());
}

/** Numbers, sizes and dates in the UI language's conventions. */
export function locale(): string {
  return lang.value === "vi" ? "vi-VN" : "en-US";
}
