import type { ContentForm } from "../api/client.ts";
import { STUDIO_KINDS, STUDIO_STORAGE_PREFIX, type StudioKind } from "./studio-kinds.ts";

/** The create form's choices, kept so a reload loses nothing ("" = the API's default). */
export interface Choices {
  kind: StudioKind;
  voice: string;
  bg: string;
  quizTemplate: string;
  slideTemplate: string;
  clipDuration: string;
  slideCountRange: string;
  slideLanguage: string;
}
export const CHOICES_KEY = `${STUDIO_STORAGE_PREFIX}choices`;
const DEFAULT_CHOICES: Choices = {
  kind: "short",
  voice: "",
  bg: "",
  quizTemplate: "",
  slideTemplate: "",
  clipDuration: "30",
  slideCountRange: "5-8",
  slideLanguage: "",
};
export const FORM_OF: Record<StudioKind, ContentForm> = {
  short: "shorts",
  audio: "shorts",
  quiz: "quiz-video",
  slide: "slide",
};

export function readChoices(): Choices {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICES_KEY) ?? "{}") as Partial<Choices>;
    const merged = { ...DEFAULT_CHOICES, ...saved };
    return STUDIO_KINDS.includes(merged.kind) ? merged : DEFAULT_CHOICES;
  } catch {
    return DEFAULT_CHOICES;
  }
}

/**
 * The fields a create request sends for these choices (application/x-www-form-urlencoded); the API
 * checks them and answers a refusal with its error_key.
 *
 * @example createFields(choices, "note-1", "en-female") // { note_id: "note-1", voice_id: "en-female", clip_duration: "30", … }
 */
export function createFields(
  choices: Choices,
  noteId: string,
  voiceId: string,
  community = false,
): Record<string, string> {
  const fields: Record<string, string> = { note_id: noteId };
  // Another owner's published note: the API looks it up among the community notes.
  if (community) fields.community = "true";
  const set = (name: string, value: string) => {
    if (value.trim()) fields[name] = value.trim();
  };
  if (choices.kind !== "slide") set("voice_id", voiceId);
  if (choices.kind === "short" || choices.kind === "audio") set("clip_duration", choices.clipDuration);
  if (choices.kind === "audio") fields.is_audio_only = "true";
  if (choices.kind === "short" || choices.kind === "quiz") set("bg_id", choices.bg);
  if (choices.kind === "quiz") set("template_id", choices.quizTemplate);
  if (choices.kind === "slide") {
    set("template_id", choices.slideTemplate);
    set("slide_count_range", choices.slideCountRange);
    set("language", choices.slideLanguage);
  }
  return fields;
}
