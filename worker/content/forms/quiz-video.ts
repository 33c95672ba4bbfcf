import { DEFAULT_QUIZ_TEMPLATE_ID } from "../../../protocol/content.ts";
import { QuizVideoForm } from "../../schemas/content.ts";
import { bgId, type FormFields, templateId, voiceId, voiceLanguage } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

/** POST /v2/create/quiz-video: a quiz from the note, asked and answered on video. */
export const quizVideoForm: CreateForm<"quiz_video"> = {
  path: "/quiz-video",
  summary: "Make a quiz video from a note",
  form: QuizVideoForm,
  madeIn: (params) => voiceLanguage(params.voice_id),
  params: (fields: FormFields) => ({
    voice_id: voiceId(fields),
    bg_id: bgId(fields),
    template_id: templateId(fields, "quiz_video", DEFAULT_QUIZ_TEMPLATE_ID),
  }),
};
