import { pcmWavHeader } from "../../protocol/wav.ts";

/**
 * SUCCESS results of the new studio kinds, in the shape GET /v1/create/tasks/{id}/result answers them
 * (docs/api.md): the data each kind's previews read and its data.files. The browser test serves them
 * in place of the API's answers for made-up task ids, so the cards are checked without the renderers.
 * Every file link is under /recorded/, which the test serves too.
 */
type File = { role: string; content_type: string; bytes: number; url: string };
const file = (task: string, role: string, name: string, contentType: string): File => ({
  role,
  content_type: contentType,
  bytes: 1_500,
  url: `/recorded/${task}/${name}?expires=4102444800&sig=recorded`,
});

export const RECORDED_NOTE_TITLE = "The Mekong River";

export const FLASHCARDS = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "flashcards",
    card_count: 2,
    cards: [
      {
        front: "How long is the Mekong?",
        back: "About 4,350 kilometres",
        source_sentence: "…",
        tags: ["geo"],
      },
      {
        front: "What keeps the delta fertile?",
        back: "Sediment from the monsoon floods",
        source_sentence: "…",
        tags: [],
      },
    ],
    files: [
      file("rec-flashcards", "apkg", "cards.apkg", "application/apkg"),
      file("rec-flashcards", "csv", "cards.csv", "text/csv"),
      file("rec-flashcards", "json", "cards.json", "application/json"),
    ],
  },
};

export const QUESTIONS = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "quiz",
    questions: [
      {
        question: "How many countries does the Mekong flow through?",
        options: ["Three", "Four", "Six", "Nine"],
        answer_index: 2,
        explanation: "From the Tibetan Plateau to the South China Sea, through six countries.",
      },
    ],
    files: [
      file("rec-questions", "moodle_xml", "quiz.xml", "application/xml"),
      file("rec-questions", "gift", "quiz.gift", "text/plain"),
      file("rec-questions", "pdf", "quiz.pdf", "application/pdf"),
    ],
  },
};

export const MINDMAP = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "mindmap",
    files: [
      file("rec-mindmap", "png", "map.png", "image/png"),
      file("rec-mindmap", "svg", "map.svg", "image/svg+xml"),
      file("rec-mindmap", "opml", "map.opml", "text/x-opml"),
    ],
  },
};

/** The guide holds HTML that must show as text and never run. */
export const GUIDE_MARKDOWN = `# Study guide: the Mekong

The **Mekong** feeds 60 million people.

## Key terms
- **Delta**: the land the river builds at its mouth
- <img src=x onerror="window.injected=true">Sediment

<script>window.injected = true</script>`;

export const STUDY_GUIDE = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "study_guide",
    files: [
      file("rec-guide", "markdown", "guide.md", "text/markdown"),
      file("rec-guide", "pdf", "guide.pdf", "application/pdf"),
    ],
  },
};

export const PODCAST = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "podcast",
    duration: 60,
    audio_url: "/recorded/rec-podcast/podcast.wav?expires=4102444800&sig=recorded",
    chapters: [
      { title: "The river", start: 0, end: 20 },
      { title: "Threats", start: 42, end: 60 },
    ],
    files: [
      { ...file("rec-podcast", "audio", "podcast.wav", "audio/wav"), bytes: 960_044 },
      file("rec-podcast", "audio_mp3", "podcast.mp3", "audio/mpeg"),
      file("rec-podcast", "json", "script.json", "application/json"),
      file("rec-podcast", "txt", "script.txt", "text/plain"),
    ],
  },
};

export const VIDEO_OVERVIEW = {
  status: "SUCCESS",
  data: {
    note_id: "note-mekong",
    type: "video_overview",
    language: "en",
    files: [
      file("rec-overview", "video", "overview.mp4", "video/mp4"),
      file("rec-overview", "srt", "overview.srt", "application/x-subrip"),
      file("rec-overview", "vtt", "overview.vtt", "text/vtt"),
      file("rec-overview", "pdf", "overview.pdf", "application/pdf"),
    ],
  },
};

/** A translation's data.note_id is the new note: the test fills in one it made. */
export const translationResult = (newNoteId: string) => ({
  status: "SUCCESS",
  data: { note_id: newNoteId, type: "translation", files: [] },
});

/** 60 s of 8 kHz silence: a podcast file the player can load and seek. */
export function silentWav(seconds = 60, sampleRate = 8_000): Buffer {
  const data = Buffer.alloc(seconds * sampleRate * 2);
  return Buffer.concat([pcmWavHeader({ channels: 1, sampleRate, bitsPerSample: 16 }, data.length), data]);
}
