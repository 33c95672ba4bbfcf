import { t } from "../i18n/i18n.ts";
import { formatClock } from "../ui/format.ts";
import { DownloadList } from "./download-list.tsx";
import { fileBaseName, fileOf } from "./downloads.ts";
import { AudioPreview } from "./previews/audio-preview.tsx";
import { ChaptersPreview } from "./previews/chapters-preview.tsx";
import { FlashcardsPreview } from "./previews/flashcards-preview.tsx";
import { ImagePreview } from "./previews/image-preview.tsx";
import { MarkdownPreview } from "./previews/markdown-preview.tsx";
import { NewNotePreview } from "./previews/new-note-preview.tsx";
import { PdfPreview } from "./previews/pdf-preview.tsx";
import { QuizPreview } from "./previews/quiz-preview.tsx";
import { VideoPreview } from "./previews/video-preview.tsx";
import { cardsOf, chaptersOf, newNoteOf, questionsOf } from "./result-data.ts";
import "../styles/studio-results.css";
import { kindSpec, type PreviewName } from "./studio-kinds.ts";
import type { StudioTask } from "./studio-tasks.ts";
import type { TaskView } from "./task-view.ts";

/** What the page does for a translation's new note: refresh the note list, choose the note. */
export interface NoteActions {
  onNoteMade: (noteId: string) => void;
  onOpenNote: (noteId: string) => void;
}

/** A finished task: its kind's previews (from the kind table), then every file it made to download. */
export function TaskResult(props: {
  view: Extract<TaskView, { phase: "done" }>;
  task: StudioTask;
  notes: NoteActions;
}) {
  const { view, task } = props;
  return (
    <div class="stack task-result">
      <p class="status status-done">
        {t("job.done")}
        {view.durationSec ? ` · ${formatClock(view.durationSec)}` : ""}
      </p>
      {kindSpec(task.kind).previews.map((name) => (
        <Preview key={name} name={name} view={view} task={task} notes={props.notes} />
      ))}
      <DownloadList files={view.files} baseName={fileBaseName(task.note_title)} />
    </div>
  );
}

/** One preview, fed from the result's files and data; nothing when the result lacks what it shows. */
function Preview(props: {
  name: PreviewName;
  view: Extract<TaskView, { phase: "done" }>;
  task: StudioTask;
  notes: NoteActions;
}) {
  const { files, data } = props.view;
  const language = typeof data.language === "string" ? data.language : null;
  switch (props.name) {
    case "video": {
      const video = fileOf(files, "video");
      return video && <VideoPreview video={video} captions={fileOf(files, "vtt")} language={language} />;
    }
    case "audio": {
      const audio = fileOf(files, "audio");
      return audio && <AudioPreview audio={audio} />;
    }
    case "pdf": {
      const pdf = fileOf(files, "pdf");
      return pdf && <PdfPreview pdf={pdf} />;
    }
    case "image": {
      const image = fileOf(files, "png") ?? fileOf(files, "svg");
      return image && <ImagePreview image={image} title={props.task.note_title} />;
    }
    case "flashcards":
      return <FlashcardsPreview cards={cardsOf(data)} />;
    case "quiz":
      return <QuizPreview questions={questionsOf(data)} />;
    case "chapters": {
      const audio = fileOf(files, "audio");
      return audio && <ChaptersPreview audio={audio} chapters={chaptersOf(data)} />;
    }
    case "markdown": {
      const markdown = fileOf(files, "markdown");
      return markdown && <MarkdownPreview markdown={markdown} />;
    }
    case "new_note": {
      const noteId = newNoteOf(data);
      return (
        noteId && (
          <NewNotePreview
            noteId={noteId}
            onNoteMade={props.notes.onNoteMade}
            onOpen={props.notes.onOpenNote}
          />
        )
      );
    }
  }
}
