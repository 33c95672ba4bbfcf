/** The mind map kind's params (POST /v2/create/mindmap, resolved): the note and its language. */
import { z } from "zod";
import { NoteSnapshot } from "./content-params.ts";

/** `language` null: the note's own. */
export const MindMapParams = z.object({
  note: NoteSnapshot,
  language: z.enum(["en", "vi"]).nullable().default(null),
  community: z.boolean().default(false),
});
export type MindMapParams = z.infer<typeof MindMapParams>;
