/**
 * A note in another language, as a new note: its Markdown structure kept line for line (headings,
 * bullet and numbered lists, quotes, blank lines), the text of each line translated sentence by
 * sentence through the node's translation backend, so no request carries more than one sentence and a
 * failure names the sentence. Code blocks and inline code stay as written; so do URLs.
 */
import type { NoteSnapshot } from "../../../protocol/content.ts";
import { splitSentences } from "../../../protocol/sentences.ts";
import { ContentError } from "../errors.ts";
import { type ContentLanguage, type TranslateFn, toLanguage } from "../script.ts";
import { noteLanguage } from "../text.ts";

/** The most characters a note to translate may hold (a long lecture's transcript). */
export const MAX_NOTE_CHARS = 200_000;

export interface TranslatedNote {
  title: string;
  content: string;
  language: ContentLanguage;
  /** Sentences sent to the backend (empty lines and kept markup are not). */
  sentences: number;
}

/** A line's markup prefix (heading, list marker, quote) and its text. */
const PREFIX = /^(\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,3}[.)]\s+|>\s*)*)(.*)$/;
/** Spans kept as written inside a line: inline code and URLs (split on, then recognised). */
const KEPT_SPLIT = /(`[^`]*`|https?:\/\/\S+)/;
const KEPT = /^(`[^`]*`|https?:\/\/\S+)$/;

/**
 * Translates a note into `to`.
 *
 * @example
 * const translated = await translateNote(note, "vi", translate, signal);
 * translated.content; // "# Tổng quan\n\n- …"
 */
export async function translateNote(
  note: NoteSnapshot,
  to: ContentLanguage,
  translate: TranslateFn | undefined,
  signal: AbortSignal,
): Promise<TranslatedNote> {
  const from = noteLanguage(note.language, note.content);
  if (from === to) {
    throw new ContentError("invalid_params", `the note is already in "${to}": ask for another language`);
  }
  if (!note.content.trim()) throw new ContentError("note_too_short", "the note is empty");
  if (note.content.length > MAX_NOTE_CHARS) {
    throw new ContentError(
      "invalid_params",
      `the note has ${note.content.length} characters; at most ${MAX_NOTE_CHARS} are translated`,
    );
  }
  let sentences = 0;
  const sentence = async (text: string) => {
    sentences++;
    return toLanguage(text, from, to, translate, signal);
  };
  const out: string[] = [];
  let fenced = false;
  for (const line of note.content.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || /^\s*(```|~~~)/.test(line) || !line.trim()) {
      out.push(line);
      continue;
    }
    const [, prefix = "", text = ""] = PREFIX.exec(line) ?? [];
    out.push(prefix + (await translateLine(text, from, sentence)));
  }
  const title = note.title.trim() ? await sentence(note.title.trim()) : "";
  return { title, content: out.join("\n"), language: to, sentences };
}

/** One line's text: sentence by sentence, inline code and URLs kept between the translated parts. */
async function translateLine(
  text: string,
  from: ContentLanguage,
  sentence: (text: string) => Promise<string>,
): Promise<string> {
  const parts = text.split(KEPT_SPLIT);
  const out: string[] = [];
  for (const part of parts) {
    if (!part || KEPT.test(part)) {
      out.push(part);
      continue;
    }
    const leading = /^\s*/.exec(part)?.[0] ?? "";
    const trailing = /\s*$/.exec(part)?.[0] ?? "";
    const translated: string[] = [];
    for (const piece of splitSentences(part.trim(), from)) translated.push(await sentence(piece));
    out.push(leading + translated.join(" ") + (part.trim() ? trailing : ""));
  }
  return out.join("");
}
