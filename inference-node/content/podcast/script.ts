/**
 * The script of an audio overview. `deep_dive`: two hosts in conversation, one asking about each key
 * point of the note and the other explaining it from the note's own sentences, then a recap; `brief`:
 * one voice going through the points, under two minutes. Extractive by default (the note's ranked
 * sentences, questions built from their key terms); written by the configured chat model when there is
 * one. Either way every line names its host and every key point opens a chapter.
 */
import { z } from "zod";
import type { NoteSnapshot, PodcastFormat, PodcastLength } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { keyTerms, lowerCaseWords, rankSentences } from "../keywords.ts";
import { chatComplete, extractJson, type LlmConfig } from "../llm.ts";
import { type ContentLanguage, DEFAULT_WORDS_PER_SEC, LANGUAGE_NAMES, MIN_NOTE_WORDS } from "../script.ts";
import { noteSections, splitWords } from "../text.ts";
import { spokenTitle } from "../title-opening.ts";

/** Host A leads (asks, introduces, closes); host B explains. A brief has host A alone. */
export type Host = "A" | "B";

export interface ScriptLine {
  host: Host;
  text: string;
  /** Set on the line that opens a chapter: its title. */
  chapter?: string;
}

export interface PodcastScript {
  language: ContentLanguage;
  format: PodcastFormat;
  lines: ScriptLine[];
}

export interface PodcastRequest {
  note: NoteSnapshot;
  language: ContentLanguage;
  format: PodcastFormat;
  length: PodcastLength;
}

/** Key points a deep dive covers, by length. */
const DEEP_DIVE_POINTS: Record<PodcastLength, number> = { short: 3, default: 5, long: 8 };
/** Seconds of speech a brief aims at, by length: the longest stays under two minutes with its pauses. */
const BRIEF_SECONDS: Record<PodcastLength, number> = { short: 45, default: 75, long: 100 };
/** Longest line a host reads (a chat model's too): a turn, not a lecture. */
const MAX_LINE_CHARS = 600;
const MAX_LINES = 60;

const WORDS: Record<
  ContentLanguage,
  {
    welcome: (title: string) => string;
    brief: (title: string) => string;
    ask: (term: string) => string;
    askNext: string;
    agree: string;
    recap: string;
    outro: string;
    intro: string;
    recapTitle: string;
    /** The topic when the note has no title to say. */
    thisNote: string;
  }
> = {
  en: {
    welcome: (title) => `Welcome to the deep dive. Today we are looking at ${title}.`,
    brief: (title) => `Here is a brief overview of ${title}.`,
    ask: (term) => `So what should we know about ${term}?`,
    askNext: "What else stands out?",
    agree: "Right.",
    recap: "Let's recap the main points.",
    outro: "Thanks for listening.",
    intro: "Introduction",
    recapTitle: "Recap",
    thisNote: "this note",
  },
  vi: {
    welcome: (title) =>
      `Chào mừng các bạn đến với chương trình tìm hiểu sâu. Hôm nay chúng ta nói về ${title}.`,
    brief: (title) => `Sau đây là phần tóm tắt ngắn về ${title}.`,
    ask: (term) => `Vậy chúng ta cần biết gì về ${term}?`,
    askNext: "Còn điều gì đáng chú ý nữa?",
    agree: "Đúng vậy.",
    recap: "Chúng ta cùng tóm tắt những ý chính.",
    outro: "Cảm ơn các bạn đã lắng nghe.",
    intro: "Giới thiệu",
    recapTitle: "Tóm tắt",
    thisNote: "ghi chú này",
  },
};

interface Point {
  sentence: string;
  /** The next sentence of the same section, said with it when there is one. */
  followUp: string | null;
  term: string | null;
}

/**
 * The note's key points in note order: the best-ranked sentences, each with its section's next
 * sentence and its most telling term.
 */
function keyPoints(note: NoteSnapshot, language: ContentLanguage, count: number): Point[] {
  const sections = noteSections(note.content, language);
  const all = sections.flatMap((section) => section.sentences);
  if (splitWords(all.join(" ")).length < MIN_NOTE_WORDS) {
    throw new ContentError("note_too_short", "the note has too little text for an audio overview");
  }
  const ranks = rankSentences(all);
  const lowerCased = lowerCaseWords(all);
  const chosen = new Set(
    all
      .map((_, index) => ({ index, rank: ranks[index] ?? 0 }))
      .sort((a, b) => b.rank - a.rank)
      .slice(0, count)
      .map((entry) => entry.index),
  );
  const points: Point[] = [];
  let index = 0;
  for (const section of sections) {
    section.sentences.forEach((sentence, i) => {
      if (chosen.has(index)) {
        const next = section.sentences[i + 1];
        const term = keyTerms(sentence, language, lowerCased).find((t) => t.kind !== "number")?.text ?? null;
        points.push({ sentence, followUp: next && !chosen.has(index + 1) ? next : null, term });
      }
      index++;
    });
  }
  return points;
}

/** The note's own words in a deep dive: questions from key terms, answers from the note. */
function deepDive(request: PodcastRequest, title: string): ScriptLine[] {
  const words = WORDS[request.language];
  const points = keyPoints(request.note, request.language, DEEP_DIVE_POINTS[request.length]);
  const lines: ScriptLine[] = [{ host: "A", text: words.welcome(title), chapter: words.intro }];
  points.forEach((point, i) => {
    const question = point.term ? words.ask(point.term) : words.askNext;
    const chapter = point.term ? capitalize(point.term) : `${words.intro} ${i + 1}`;
    lines.push({ host: "A", text: question, chapter });
    lines.push({ host: "B", text: [point.sentence, point.followUp].filter(Boolean).join(" ") });
    if (i < points.length - 1 && i % 2 === 1) lines.push({ host: "A", text: words.agree });
  });
  const recap = points.slice(0, 3).map((point) => point.sentence);
  lines.push({ host: "A", text: words.recap, chapter: words.recapTitle });
  lines.push({ host: "B", text: recap.join(" ") });
  lines.push({ host: "A", text: words.outro });
  return lines;
}

/** One voice through the points, within the length's time at the language's speaking rate. */
function brief(request: PodcastRequest, title: string): ScriptLine[] {
  const words = WORDS[request.language];
  const budget = Math.floor(BRIEF_SECONDS[request.length] * DEFAULT_WORDS_PER_SEC[request.language]);
  const points = keyPoints(request.note, request.language, 12);
  const lines: ScriptLine[] = [{ host: "A", text: words.brief(title), chapter: words.intro }];
  let spent = splitWords(lines[0]?.text ?? "").length + splitWords(words.outro).length;
  for (const point of points) {
    const size = splitWords(point.sentence).length;
    if (spent + size > budget) break;
    spent += size;
    lines.push({ host: "A", text: point.sentence, ...(point.term && { chapter: capitalize(point.term) }) });
  }
  lines.push({ host: "A", text: words.outro });
  return lines;
}

/**
 * The script, extractive.
 *
 * @example
 * extractivePodcastScript({ note, language: "en", format: "deep_dive", length: "short" }).lines[0].host; // "A"
 */
export function extractivePodcastScript(request: PodcastRequest): PodcastScript {
  const title = spokenTitle(request.note) ?? WORDS[request.language].thisNote;
  const lines = request.format === "deep_dive" ? deepDive(request, title) : brief(request, title);
  return { language: request.language, format: request.format, lines: lines.map(bounded) };
}

const LlmScript = z.object({
  lines: z
    .array(
      z.object({
        host: z.enum(["A", "B"]),
        text: z.string().min(1),
        chapter: z.string().max(80).optional(),
      }),
    )
    .min(2)
    .max(MAX_LINES),
});

/**
 * The script from an OpenAI-compatible chat model: it answers JSON lines (host, text, chapter), checked
 * here; a brief must have host A alone and fit its time, a deep dive both hosts.
 */
export async function llmPodcastScript(
  request: PodcastRequest,
  config: LlmConfig,
  signal: AbortSignal,
): Promise<PodcastScript> {
  const language = LANGUAGE_NAMES[request.language];
  const shape =
    request.format === "deep_dive"
      ? `two hosts in conversation: host "A" asks questions and leads, host "B" explains; cover about ${DEEP_DIVE_POINTS[request.length]} key points, then a short recap`
      : `one host ("A" only), at most ${Math.floor(BRIEF_SECONDS[request.length] * DEFAULT_WORDS_PER_SEC[request.language])} words in all`;
  const answer = await chatComplete(
    config,
    [
      {
        role: "system",
        content:
          `You write podcast scripts in ${language} from a note, using only facts from the note. ` +
          'Answer JSON only: {"lines":[{"host":"A"|"B","text":"...","chapter":"optional title of the part this line opens"}]}.',
      },
      {
        role: "user",
        content: `Format: ${shape}.\nTitle: ${request.note.title}\nNote:\n${request.note.content}`,
      },
    ],
    signal,
  );
  const parsed = LlmScript.safeParse(extractJson(answer));
  if (!parsed.success)
    throw new ContentError("llm_failed", "the chat model's script has not the asked shape");
  const lines: ScriptLine[] = parsed.data.lines.map((line) => ({
    host: line.host,
    text: line.text,
    ...(line.chapter && { chapter: line.chapter }),
  }));
  const hosts = new Set(lines.map((line) => line.host));
  if (request.format === "brief" ? hosts.has("B") : hosts.size < 2) {
    throw new ContentError(
      "llm_failed",
      request.format === "brief"
        ? "the chat model gave a brief two hosts"
        : "the chat model gave a deep dive one host",
    );
  }
  lines[0] = { ...(lines[0] as ScriptLine), chapter: lines[0]?.chapter ?? WORDS[request.language].intro };
  return { language: request.language, format: request.format, lines: lines.map(bounded) };
}

function bounded(line: ScriptLine): ScriptLine {
  if (line.text.length <= MAX_LINE_CHARS) return line;
  const cut = line.text.slice(0, MAX_LINE_CHARS);
  return { ...line, text: `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 1))}…` };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
