/**
 * Content generation (shorts, quiz videos, slide decks) as the inference node receives it: the params
 * of each content task kind, the catalogs a client picks from (voices, backgrounds, templates), the
 * steps a running task reports and the error codes a failed one ends with. Shared by the Worker and
 * the node, so zod only. Preview URLs are the Worker's business and are not here.
 */
import { z } from "zod";
import { BACKGROUNDS, SlideCountRange, TEMPLATES, VOICES } from "./content-params.ts";
import { CONTENT_KINDS, type ContentKind, perKind, TASK_CONTRACTS, type TaskContract } from "./task.ts";
import type { TaskFailureCode } from "./task-failure.ts";

export * from "./content-params.ts";
export * from "./flashcards-params.ts";
export * from "./mindmap-params.ts";
export * from "./narration-voices.ts";
export * from "./note-translation-params.ts";
export * from "./podcast-params.ts";
export * from "./quiz-params.ts";
export * from "./study-guide-params.ts";
export * from "./video-overview-params.ts";

/** One content kind's job schema, with that kind's params. */
type JobVariant = {
  [K in ContentKind]: z.ZodObject<{ kind: z.ZodLiteral<K>; params: TaskContract<K>["params"] }>;
}[ContentKind];

function jobOf(kind: ContentKind): JobVariant {
  const variant = z.object({ kind: z.literal(kind), params: TASK_CONTRACTS[kind].params });
  return variant as unknown as JobVariant;
}

/** What a node is asked to render: the task kind and its params, one variant per content kind of the table. */
export const ContentJob = z.discriminatedUnion("kind", perKind(CONTENT_KINDS, jobOf));
export type ContentJob = z.infer<typeof ContentJob>;
export type { ContentKind };

/** The `step` a running content task reports, in the order they happen. */
export const CONTENT_STEPS = [
  "writing_script",
  "writing_quiz",
  "translating",
  "synthesizing_voice",
  "rendering_video",
  "rendering_audio",
  "building_slides",
  "uploading",
  "writing_guide",
  "building_cards",
  "building_mindmap",
] as const;
export const ContentStep = z.enum(CONTENT_STEPS);
export type ContentStep = z.infer<typeof ContentStep>;

/**
 * The failure codes a content render can end with (their meanings and retry rules are in
 * protocol/task-failure.ts); the content API shows them as `error_key`.
 */
export const CONTENT_ERROR_CODES = [
  "invalid_params",
  "note_too_short",
  "tts_unavailable",
  "tts_failed",
  "llm_failed",
  "translation_unavailable",
  "translation_failed",
  "renderer_unavailable",
  "render_failed",
  "slides_failed",
] as const satisfies readonly TaskFailureCode[];
export const ContentErrorCode = z.enum(CONTENT_ERROR_CODES);
export type ContentErrorCode = z.infer<typeof ContentErrorCode>;

/**
 * Parses "5-8" (the wire form of slide_count_range) into a range; null when malformed.
 *
 * @example
 * parseSlideCountRange("5-8"); // { min: 5, max: 8 }
 * parseSlideCountRange("9-3"); // null
 */
export function parseSlideCountRange(text: string): SlideCountRange | null {
  const match = /^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$/.exec(text);
  if (!match) return null;
  const parsed = SlideCountRange.safeParse({ min: Number(match[1]), max: Number(match[2]) });
  return parsed.success ? parsed.data : null;
}

/** Catalog preview files as nodes upload them and the Worker links them. */
export const previewFile = {
  background: (bgId: string) => `bg-${bgId}.png`,
  template: (templateId: string) => `template-${templateId}.png`,
  voice: (voiceId: string) => `voice-${voiceId}.mp3`,
} as const;

/** Every preview file the catalogs name: what nodes render and upload, and all the Worker serves. */
export const PREVIEW_FILES: ReadonlySet<string> = new Set([
  ...VOICES.map((voice) => previewFile.voice(voice.voice_id)),
  ...BACKGROUNDS.map((bg) => previewFile.background(bg.bg_id)),
  ...TEMPLATES.map((template) => previewFile.template(template.template_id)),
]);
