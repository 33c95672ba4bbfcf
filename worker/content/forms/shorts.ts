import { ShortsForm } from "../../schemas/content.ts";
import { bgId, type FormFields, flag, voiceId, wholeNumber } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

/** POST /v2/create/shorts: a narrated vertical short, or its audio. */
export const shortsForm: CreateForm<"shorts"> = {
  path: "/shorts",
  summary: "Make a narrated vertical short (or its audio) from a note",
  form: ShortsForm,
  params: (fields: FormFields) => ({
    voice_id: voiceId(fields),
    clip_duration: wholeNumber(fields, "clip_duration", {
      min: 5,
      max: 180,
      fallback: 30,
      errorKey: "invalid_clip_duration",
    }),
    is_audio_only: flag(fields, "is_audio_only"),
    bg_id: bgId(fields),
  }),
};
