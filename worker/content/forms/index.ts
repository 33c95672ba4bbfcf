import type { ContentKind } from "../../../protocol/task.ts";
import type { CreateForm } from "./create-form.ts";
import { noteTranslationForm } from "./note-translation.ts";
import { quizVideoForm } from "./quiz-video.ts";
import { shortsForm } from "./shorts.ts";
import { slideForm } from "./slide.ts";

/** The create endpoints, one row per content kind of the protocol's table (the type insists). */
export const CREATE_FORMS: { readonly [K in ContentKind]: CreateForm<K> } = {
  shorts: shortsForm,
  quiz_video: quizVideoForm,
  slide: slideForm,
  note_translation: noteTranslationForm,
};
