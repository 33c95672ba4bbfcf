/**
 * A slide outline from a note: a title slide, content slides (heading + bullets) that follow the
 * note's sections and key sentences, and a summary slide when room allows, within the requested
 * slide-count range and in the requested language.
 */
import type { NoteSnapshot, SlideCountRange } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";
import { keyTerms, rankSentences } from "./keywords.ts";
import { type ContentLanguage, type TranslateFn, toLanguage } from "./script.ts";
import { asSentence, noteLanguage, noteSections, splitWords } from "./text.ts";
import { isCutOpening } from "./title-opening.ts";

/**
 * A slide and its `narration`: what a presenter says over it, in whole sentences (the note's own, where
 * the bullets are cut short), written to the PPTX's speaker notes.
 */
export type OutlineSlide = { narration: string } & (
  | { kind: "title"; title: string; subtitle: string }
  | { kind: "content"; heading: string; bullets: string[] }
  | { kind: "summary"; heading: string; bullets: string[] }
);

export interface DeckOutline {
  language: ContentLanguage;
  slides: OutlineSlide[];
}

export const MAX_BULLETS = 4;
const BULLET_MAX_WORDS = 24;
const SUMMARY_MAX_WORDS = 14;

const LABELS: Record<
  ContentLanguage,
  { summary: string; subtitle: string; community: string; part: string }
> = {
  en: {
    summary: "Summary",
    subtitle: "Key points from the note",
    community: "From a community note",
    part: "Key points",
  },
  vi: {
    summary: "Tóm tắt",
    subtitle: "Những ý chính của ghi chú",
    community: "Từ một ghi chú cộng đồng",
    part: "Ý chính",
  },
};

interface Chunk {
  heading: string | null;
  sentences: { text: string; rank: number }[];
}

function clip(sentence: string, maxWords: number): string {
  const words = splitWords(sentence);
  return words.length <= maxWords
    ? sentence
    : `${words
        .slice(0, maxWords)
        .join(" ")
        .replace(/[,;:]$/, "")}…`;
}

/** A heading for an untitled chunk: its most telling name or term. */
function headingFor(chunk: Chunk, language: ContentLanguage, fallback: string): string {
  const best = [...chunk.sentences].sort((a, b) => b.rank - a.rank)[0];
  const term = best ? keyTerms(best.text, language).find((t) => t.kind !== "number") : undefined;
  if (!term) return fallback;
  return term.text.charAt(0).toUpperCase() + term.text.slice(1);
}

/** Splits the largest chunk in two until there are `count` chunks or none can be split. */
function splitToCount(chunks: Chunk[], count: number): Chunk[] {
  const out = [...chunks];
  while (out.length < count) {
    const index = out.reduce(
      (best, c, i) => (c.sentences.length > (out[best]?.sentences.length ?? 0) ? i : best),
      0,
    );
    const chunk = out[index];
    if (!chunk || chunk.sentences.length < 2) break;
    const half = Math.ceil(chunk.sentences.length / 2);
    out.splice(
      index,
      1,
      { ...chunk, sentences: chunk.sentences.slice(0, half) },
      { ...chunk, sentences: chunk.sentences.slice(half) },
    );
  }
  return out;
}

/**
 * The outline in the note's language, `range.min..range.max` slides long.
 *
 * @example
 * outlineDeck(note, { min: 5, max: 8 }, false).slides.length; // between 5 and 8
 */
export function outlineDeck(note: NoteSnapshot, range: SlideCountRange, community: boolean): DeckOutline {
  const language = noteLanguage(note.language, note.content);
  const labels = LABELS[language];
  const sections = noteSections(note.content, language);
  const all = sections.flatMap((s) => s.sentences);
  if (splitWords(all.join(" ")).length < 8)
    throw new ContentError("note_too_short", "the note has too little text for slides");
  const ranks = rankSentences(all);
  let at = 0;
  const ranked = sections.map((s) => ({
    heading: s.heading,
    sentences: s.sentences.map((text) => ({ text, rank: ranks[at++] ?? 0 })),
  }));

  const withTitle = range.max >= 2;
  const withSummary = range.max >= 3 && all.length >= 4;
  const maxContent = range.max - (withTitle ? 1 : 0) - (withSummary ? 1 : 0);
  const minContent = Math.max(1, range.min - (withTitle ? 1 : 0) - (withSummary ? 1 : 0));

  // Natural chunks: each section in groups of MAX_BULLETS sentences.
  let chunks: Chunk[] = ranked.flatMap((section) => {
    const groups: Chunk[] = [];
    for (let i = 0; i < section.sentences.length; i += MAX_BULLETS) {
      groups.push({ heading: section.heading, sentences: section.sentences.slice(i, i + MAX_BULLETS) });
    }
    return groups;
  });
  if (chunks.length > maxContent) {
    // Too long: keep the best-ranked sentences (in note order) that fill maxContent slides.
    const keep = new Set(
      ranked
        .flatMap((s) => s.sentences)
        .sort((a, b) => b.rank - a.rank)
        .slice(0, maxContent * MAX_BULLETS),
    );
    const kept = ranked.map((s) => ({
      heading: s.heading,
      sentences: s.sentences.filter((x) => keep.has(x)),
    }));
    const flat = kept.flatMap((s) => s.sentences.map((x) => ({ heading: s.heading, x })));
    chunks = [];
    const perSlide = Math.ceil(flat.length / maxContent);
    for (let i = 0; i < flat.length; i += perSlide) {
      const group = flat.slice(i, i + perSlide);
      chunks.push({ heading: group[0]?.heading ?? null, sentences: group.map((g) => g.x) });
    }
  }
  chunks = splitToCount(chunks, minContent);

  const slides: OutlineSlide[] = [];
  if (withTitle) {
    const title =
      note.title.trim() || headingFor(chunks[0] ?? { heading: null, sentences: [] }, language, labels.part);
    const subtitle = community ? labels.community : labels.subtitle;
    // A title cut from the note's opening is not read out, trailing off, before the first slide says
    // the whole sentence: the title slide then says only its subtitle.
    const firstSaid = chunks[0]?.sentences.map((s) => s.text).join(" ") ?? "";
    const narration = isCutOpening(title, firstSaid)
      ? asSentence(subtitle)
      : `${asSentence(title)} ${asSentence(subtitle)}`;
    slides.push({ kind: "title", title, subtitle, narration });
  }
  chunks.forEach((chunk, i) => {
    slides.push({
      kind: "content",
      heading: chunk.heading ?? headingFor(chunk, language, `${labels.part} ${i + 1}`),
      bullets: chunk.sentences.map((s) => clip(s.text, BULLET_MAX_WORDS)),
      narration: chunk.sentences.map((s) => s.text).join(" "),
    });
  });
  if (withSummary) {
    const top = all
      .map((text, i) => ({ text, rank: ranks[i] ?? 0, i }))
      .sort((a, b) => b.rank - a.rank)
      .slice(0, 3);
    const inOrder = top.sort((a, b) => a.i - b.i);
    slides.push({
      kind: "summary",
      heading: labels.summary,
      bullets: inOrder.map((s) => clip(s.text, SUMMARY_MAX_WORDS)),
      narration: inOrder.map((s) => s.text).join(" "),
    });
  }
  if (slides.length < range.min) {
    throw new ContentError(
      "note_too_short",
      `the note fills ${slides.length} slide(s); at least ${range.min} were asked`,
    );
  }
  return { language, slides };
}

/** The outline with every text translated to `to` (no-op when already in it). */
export async function translateOutline(
  outline: DeckOutline,
  to: ContentLanguage,
  translate: TranslateFn | undefined,
  signal: AbortSignal,
): Promise<DeckOutline> {
  if (outline.language === to) return outline;
  const t = (text: string) => toLanguage(text, outline.language, to, translate, signal);
  const slides: OutlineSlide[] = [];
  for (const slide of outline.slides) {
    const narration = await t(slide.narration);
    if (slide.kind === "title") {
      slides.push({
        kind: "title",
        title: await t(slide.title),
        subtitle:
          LABELS[to][slide.subtitle === LABELS[outline.language].community ? "community" : "subtitle"],
        narration,
      });
    } else {
      const bullets: string[] = [];
      for (const bullet of slide.bullets) bullets.push(await t(bullet));
      slides.push({
        kind: slide.kind,
        heading: slide.kind === "summary" ? LABELS[to].summary : await t(slide.heading),
        bullets,
        narration,
      });
    }
  }
  return { language: to, slides };
}
