import { SHORT_ASPECTS } from "../../../protocol/content.ts";
import { ShortsForm } from "../../schemas/content.ts";
import { bgId, type FormFields, flag, oneOf, voiceId, voiceLanguage, wholeNumber } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

/** POST /v2/create/shorts: a narrated short (vertical, landscape or square), or its audio. */
export const shortsForm: CreateForm<"shorts"> = {
  path: "/shorts",
  summary: "Make a narrated short (9:16, 16:9 or 1:1) or its audio from a note",
  form: ShortsForm,
  madeIn: (params) => voiceLanguage(params.voice_id),
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
    aspect: oneOf(fields, "aspect", SHORT_ASPECTS, "9:16", "invalid_aspect"),
  }),
};
