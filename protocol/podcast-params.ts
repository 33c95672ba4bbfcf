/** POST /v2/create/podcast, resolved: an audio overview of a note. */
import { z } from "zod";
import { NoteSnapshot, VOICES } from "./content-params.ts";

/** `deep_dive`: two hosts in conversation; `brief`: one voice, under two minutes. */
export const PODCAST_FORMATS = ["deep_dive", "brief"] as const;
export type PodcastFormat = (typeof PODCAST_FORMATS)[number];
/** A deep dive covers 3/5/8 key points; a brief aims at 45/75/100 s of speech. */
export const PODCAST_LENGTHS = ["short", "default", "long"] as const;
export type PodcastLength = (typeof PODCAST_LENGTHS)[number];

const catalogVoice = z
  .string()
  .refine((id) => VOICES.some((voice) => voice.voice_id === id), { message: "unknown voice_id" });

export const PodcastParams = z.object({
  note: NoteSnapshot,
  format: z.enum(PODCAST_FORMATS).default("deep_dive"),
  length: z.enum(PODCAST_LENGTHS).default("default"),
  /** Host A; null: the language's female voice. */
  voice_id: catalogVoice.nullable().default(null),
  /** Host B of a deep dive; null: the language's voice of the other gender than host A's. */
  voice_id_2: catalogVoice.nullable().default(null),
  /** null: the note's own language; else the note is translated first. */
  language: z.enum(["en", "vi"]).nullable().default(null),
});
export type PodcastParams = z.infer<typeof PodcastParams>;
