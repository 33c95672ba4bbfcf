import type { ContentKind } from "../../../protocol/task.ts";
import type { CreateForm } from "./create-form.ts";
import { flashcardsForm } from "./flashcards.ts";
import { mindMapForm } from "./mindmap.ts";
import { noteTranslationForm } from "./note-translation.ts";
import { podcastForm } from "./podcast.ts";
import { quizForm } from "./quiz.ts";
import { quizVideoForm } from "./quiz-video.ts";
import { shortsForm } from "./shorts.ts";
import { slideForm } from "./slide.ts";
import { studyGuideForm } from "./study-guide.ts";
import { videoOverviewForm } from "./video-overview.ts";

/** The create endpoints, one row per content kind of the protocol's table (the type insists). */
export const CREATE_FORMS: { readonly [K in ContentKind]: CreateForm<K> } = {
  shorts: shortsForm,
  quiz_video: quizVideoForm,
  slide: slideForm,
  quiz: quizForm,
  study_guide: studyGuideForm,
  flashcards: flashcardsForm,
  mindmap: mindMapForm,
  podcast: podcastForm,
  video_overview: videoOverviewForm,
  note_translation: noteTranslationForm,
};
