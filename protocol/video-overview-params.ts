/** POST /v2/create/video-overview, resolved: the note's slide deck, narrated, as a 1920x1080 video. */
import { z } from "zod";
import { NoteSnapshot, TEMPLATES, VOICES } from "./content-params.ts";

const SLIDE_TEMPLATE_IDS = TEMPLATES.filter((t) => t.kind === "slide").map((t) => t.template_id);
/** The first slide template of GET /v1/templates. */
export const DEFAULT_OVERVIEW_TEMPLATE_ID = SLIDE_TEMPLATE_IDS[0] ?? "slide-clean";

export const VideoOverviewParams = z.object({
  note: NoteSnapshot,
  template_id: z
    .string()
    .refine((id) => SLIDE_TEMPLATE_IDS.includes(id), { message: "unknown slide template_id" })
    .default(DEFAULT_OVERVIEW_TEMPLATE_ID),
  /** The narrator; null: the language's female voice. */
  voice_id: z
    .string()
    .refine((id) => VOICES.some((voice) => voice.voice_id === id), { message: "unknown voice_id" })
    .nullable()
    .default(null),
  /** null: the note's own language; else the note is translated first. */
  language: z.enum(["en", "vi"]).nullable().default(null),
  /** Made from a published community note: its title slide says so, as a deck's does. */
  community: z.boolean().default(false),
});
export type VideoOverviewParams = z.infer<typeof VideoOverviewParams>;
