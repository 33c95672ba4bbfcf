import type { ContentForm } from "../api/client.ts";
import type { MessageKey } from "../i18n/messages.ts";

/**
 * What the studio makes, as one table: each kind's create route, its form fields (type, default,
 * choices), its words (en + vi through the message keys) and the previews its card shows. The create
 * form, the task card and the tests read this table; nothing else knows a kind by name.
 */
export type StudioKind =
  | "short"
  | "audio"
  | "quiz"
  | "slide"
  | "flashcards"
  | "mindmap"
  | "questions"
  | "study_guide"
  | "podcast"
  | "video_overview"
  | "translation";

/** One option of a choice field; `value: ""` sends nothing (the API's default). */
export interface Choice {
  value: string;
  label: MessageKey;
}

/**
 * One form field: what it sends (`name`) and how it is asked. Catalog fields (voice, background,
 * template) default to the catalog's first fitting entry; `voice` prefers the note's language.
 */
export type FieldSpec =
  | { type: "voice"; name: string }
  /** A voice that may be left out (a podcast's second host): a list with "none" first. */
  | { type: "optional_voice"; name: string; label: MessageKey }
  | { type: "background"; name: string }
  | { type: "template"; name: string; templateKind: "slide" | "quiz_video" }
  | { type: "number"; name: string; label: MessageKey; min: number; max: number; default: string }
  | {
      type: "choice";
      name: string;
      label: MessageKey;
      choices: readonly Choice[];
      default: string;
      /** Defaults instead to the first choice that is not the note's language (a translation's target). */
      otherThanNote?: true;
    }
  | { type: "text"; name: string; label: MessageKey; hint: MessageKey; default: string }
  /** Sent as is, never asked (an audio short is the shorts route with is_audio_only=true). */
  | { type: "fixed"; name: string; value: string };

/**
 * What a finished task's card shows above its downloads: players (a video with its WebVTT captions),
 * the PDF in a frame, the mind map's picture, flip cards, a quiz to try, a podcast's chapters to seek,
 * the study guide's text, the translated note's link.
 */
export type PreviewName =
  | "video"
  | "audio"
  | "pdf"
  | "image"
  | "flashcards"
  | "quiz"
  | "chapters"
  | "markdown"
  | "new_note";

export interface StudioKindSpec {
  id: StudioKind;
  form: ContentForm;
  label: MessageKey;
  description: MessageKey;
  /** The submit button's words. */
  make: MessageKey;
  fields: readonly FieldSpec[];
  previews: readonly PreviewName[];
}

const LANGUAGE_CHOICES: readonly Choice[] = [
  { value: "", label: "studio.noteLanguageDefault" },
  { value: "en", label: "studioKinds.language.en" },
  { value: "vi", label: "studioKinds.language.vi" },
];
const language: Extract<FieldSpec, { type: "choice" }> = {
  type: "choice",
  name: "language",
  label: "studioKinds.field.language",
  choices: LANGUAGE_CHOICES,
  default: "",
};
const difficulty: FieldSpec = {
  type: "choice",
  name: "difficulty",
  label: "studioKinds.field.difficulty",
  choices: [
    { value: "easy", label: "studioKinds.difficulty.easy" },
    { value: "medium", label: "studioKinds.difficulty.medium" },
    { value: "hard", label: "studioKinds.difficulty.hard" },
  ],
  default: "medium",
};
const voice: FieldSpec = { type: "voice", name: "voice_id" };
const background: FieldSpec = { type: "background", name: "bg_id" };
const clipDuration: FieldSpec = {
  type: "number",
  name: "clip_duration",
  label: "studio.clipDuration",
  min: 5,
  max: 180,
  default: "30",
};

/** The table, in the order the form offers the kinds; the type insists on a row per kind. */
const STUDIO_KIND_TABLE: { readonly [K in StudioKind]: Omit<StudioKindSpec, "id"> } = {
  short: {
    form: "shorts",
    label: "studio.kind.short",
    description: "studioKinds.about.short",
    make: "studio.make.short",
    fields: [
      voice,
      background,
      clipDuration,
      {
        type: "choice",
        name: "aspect",
        label: "studioKinds.field.aspect",
        choices: [
          { value: "9:16", label: "studioKinds.aspect.portrait" },
          { value: "16:9", label: "studioKinds.aspect.landscape" },
          { value: "1:1", label: "studioKinds.aspect.square" },
        ],
        default: "9:16",
      },
    ],
    previews: ["video"],
  },
  audio: {
    form: "shorts",
    label: "studio.kind.audio",
    description: "studioKinds.about.audio",
    make: "studio.make.audio",
    fields: [voice, clipDuration, { type: "fixed", name: "is_audio_only", value: "true" }],
    previews: ["audio"],
  },
  quiz: {
    form: "quiz-video",
    label: "studio.kind.quiz",
    description: "studioKinds.about.quiz",
    make: "studio.make.quiz",
    fields: [voice, background, { type: "template", name: "template_id", templateKind: "quiz_video" }],
    previews: ["video"],
  },
  slide: {
    form: "slide",
    label: "studio.kind.slide",
    description: "studioKinds.about.slide",
    make: "studio.make.slide",
    fields: [
      { type: "template", name: "template_id", templateKind: "slide" },
      {
        type: "text",
        name: "slide_count_range",
        label: "studio.slideCount",
        hint: "studio.slideCountHint",
        default: "5-8",
      },
      { ...language, label: "studio.slideLanguage" },
    ],
    previews: ["pdf"],
  },
  flashcards: {
    form: "flashcards",
    label: "studioKinds.kind.flashcards",
    description: "studioKinds.about.flashcards",
    make: "studioKinds.make.flashcards",
    fields: [
      { type: "number", name: "count", label: "studioKinds.field.cardCount", min: 1, max: 50, default: "10" },
      difficulty,
      language,
    ],
    previews: ["flashcards"],
  },
  mindmap: {
    form: "mindmap",
    label: "studioKinds.kind.mindmap",
    description: "studioKinds.about.mindmap",
    make: "studioKinds.make.mindmap",
    fields: [language],
    previews: ["image"],
  },
  questions: {
    form: "quiz",
    label: "studioKinds.kind.questions",
    description: "studioKinds.about.questions",
    make: "studioKinds.make.questions",
    fields: [
      {
        type: "number",
        name: "count",
        label: "studioKinds.field.questionCount",
        min: 1,
        max: 20,
        default: "5",
      },
      difficulty,
      language,
    ],
    previews: ["quiz"],
  },
  study_guide: {
    form: "study-guide",
    label: "studioKinds.kind.study_guide",
    description: "studioKinds.about.study_guide",
    make: "studioKinds.make.study_guide",
    fields: [language],
    previews: ["markdown"],
  },
  podcast: {
    form: "podcast",
    label: "studioKinds.kind.podcast",
    description: "studioKinds.about.podcast",
    make: "studioKinds.make.podcast",
    fields: [
      {
        type: "choice",
        name: "format",
        label: "studioKinds.field.format",
        choices: [
          { value: "deep_dive", label: "studioKinds.format.deep_dive" },
          { value: "brief", label: "studioKinds.format.brief" },
        ],
        default: "deep_dive",
      },
      {
        type: "choice",
        name: "length",
        label: "studioKinds.field.length",
        choices: [
          { value: "short", label: "studioKinds.length.short" },
          { value: "default", label: "studioKinds.length.default" },
          { value: "long", label: "studioKinds.length.long" },
        ],
        default: "default",
      },
      voice,
      { type: "optional_voice", name: "voice_id_2", label: "studioKinds.field.secondVoice" },
      language,
    ],
    previews: ["chapters"],
  },
  video_overview: {
    form: "video-overview",
    label: "studioKinds.kind.video_overview",
    description: "studioKinds.about.video_overview",
    make: "studioKinds.make.video_overview",
    fields: [{ type: "template", name: "template_id", templateKind: "slide" }, voice, language],
    previews: ["video"],
  },
  translation: {
    form: "translation",
    label: "studioKinds.kind.translation",
    description: "studioKinds.about.translation",
    make: "studioKinds.make.translation",
    fields: [
      {
        type: "choice",
        name: "language",
        label: "studioKinds.field.targetLanguage",
        choices: LANGUAGE_CHOICES.filter((choice) => choice.value),
        default: "vi",
        otherThanNote: true,
      },
    ],
    previews: ["new_note"],
  },
};

export const STUDIO_KINDS = Object.keys(STUDIO_KIND_TABLE) as StudioKind[];

/** The table's row of `kind`. */
export const kindSpec = (kind: StudioKind): StudioKindSpec => ({ id: kind, ...STUDIO_KIND_TABLE[kind] });

/** Whether a value read back from localStorage names a kind of the table. */
export const isStudioKind = (value: unknown): value is StudioKind =>
  typeof value === "string" && Object.hasOwn(STUDIO_KIND_TABLE, value);

/** What the studio keeps in localStorage belongs to the key: sign-out clears this prefix (auth/key-store.ts). */
export const STUDIO_STORAGE_PREFIX = "voxedge.studio.";
