import { describe, expect, it } from "vitest";
import { BACKGROUNDS, CONTENT_OUTPUT_ROLES, TEMPLATES, VOICES } from "../../protocol/content-params.ts";
import { catalogName } from "../../web/src/i18n/catalog-names.ts";
import { en, vi } from "../../web/src/i18n/messages.ts";
import { createFields, type FormCatalogs, fieldValue } from "../../web/src/studio/create-fields.ts";
import { downloadList, extensionOf, fileBaseName, fileOf } from "../../web/src/studio/downloads.ts";
import { markdownBlocks } from "../../web/src/studio/markdown-blocks.ts";
import { cardsOf, chaptersOf, newNoteOf, questionsOf } from "../../web/src/studio/result-data.ts";
import { kindSpec, STUDIO_KINDS, type StudioKind } from "../../web/src/studio/studio-kinds.ts";
import { isTerminal, taskView } from "../../web/src/studio/task-view.ts";

/** The pure parts of Studio (run in Node): the kind table's forms, the downloads, what the previews read. */

const catalogs: FormCatalogs = {
  voices: [
    { voice_id: "en-male", language: "en" },
    { voice_id: "vi-female", language: "vi" },
  ],
  backgrounds: [{ bg_id: "aurora" }, { bg_id: "ocean" }],
  templates: [
    { template_id: "slide-clean", kind: "slide" },
    { template_id: "quiz-neon", kind: "quiz_video" },
    { template_id: "slide-forest", kind: "slide" },
  ],
};
const note = { note_id: "n1", language: "vi", community: false };
const fieldsOf = (kind: StudioKind, picked: Record<string, string> = {}, on = note) =>
  createFields(kindSpec(kind), picked, catalogs, on);

describe("studio kind table → create form", () => {
  it("posts each kind to its route with the fields the route takes, defaults filled in", () => {
    const routes = Object.fromEntries(STUDIO_KINDS.map((kind) => [kind, kindSpec(kind).form]));
    expect(routes).toEqual({
      short: "shorts",
      audio: "shorts",
      quiz: "quiz-video",
      slide: "slide",
      flashcards: "flashcards",
      mindmap: "mindmap",
      questions: "quiz",
      study_guide: "study-guide",
      podcast: "podcast",
      video_overview: "video-overview",
      translation: "translation",
    });
    // A voice in the note's language, the catalogs' first background and fitting template.
    expect(fieldsOf("short")).toEqual({
      note_id: "n1",
      voice_id: "vi-female",
      bg_id: "aurora",
      clip_duration: "30",
      aspect: "9:16",
    });
    expect(fieldsOf("audio")).toEqual({
      note_id: "n1",
      voice_id: "vi-female",
      clip_duration: "30",
      is_audio_only: "true",
    });
    expect(fieldsOf("quiz")).toEqual({
      note_id: "n1",
      voice_id: "vi-female",
      bg_id: "aurora",
      template_id: "quiz-neon",
    });
    expect(fieldsOf("slide")).toEqual({
      note_id: "n1",
      template_id: "slide-clean",
      slide_count_range: "5-8",
    });
    expect(fieldsOf("flashcards")).toEqual({ note_id: "n1", count: "10", difficulty: "medium" });
    expect(fieldsOf("mindmap")).toEqual({ note_id: "n1" });
    expect(fieldsOf("questions")).toEqual({ note_id: "n1", count: "5", difficulty: "medium" });
    expect(fieldsOf("study_guide")).toEqual({ note_id: "n1" });
    expect(fieldsOf("podcast")).toEqual({
      note_id: "n1",
      format: "deep_dive",
      length: "default",
      voice_id: "vi-female",
    });
    expect(fieldsOf("video_overview")).toEqual({
      note_id: "n1",
      template_id: "slide-clean",
      voice_id: "vi-female",
    });
    // A translation goes by default into the language the note is not in.
    expect(fieldsOf("translation")).toEqual({ note_id: "n1", language: "en" });
    expect(fieldsOf("translation", {}, { ...note, language: "en" })).toEqual({
      note_id: "n1",
      language: "vi",
    });
  });

  it("sends what was picked, trimmed; an emptied field is left to the API's default", () => {
    expect(
      fieldsOf("short", { voice_id: "en-male", bg_id: "ocean", clip_duration: " 8 ", aspect: "1:1" }),
    ).toEqual({ note_id: "n1", voice_id: "en-male", bg_id: "ocean", clip_duration: "8", aspect: "1:1" });
    expect(
      fieldsOf("podcast", {
        format: "brief",
        length: "long",
        voice_id: "en-male",
        voice_id_2: "vi-female",
        language: "en",
      }),
    ).toEqual({
      note_id: "n1",
      format: "brief",
      length: "long",
      voice_id: "en-male",
      voice_id_2: "vi-female",
      language: "en",
    });
    expect(fieldsOf("flashcards", { count: "50", difficulty: "hard", language: "en" })).toEqual({
      note_id: "n1",
      count: "50",
      difficulty: "hard",
      language: "en",
    });
    expect(fieldsOf("slide", { slide_count_range: " ", template_id: "slide-forest" })).toEqual({
      note_id: "n1",
      template_id: "slide-forest",
    });
  });

  it("drops a catalog pick the catalog no longer lists, for its default", () => {
    const spec = kindSpec("quiz");
    const [voice, background, template] = spec.fields;
    if (!voice || !background || !template) throw new Error("the quiz video lost a field");
    const stale = { voice_id: "gone", bg_id: "gone", template_id: "slide-forest" };
    expect(fieldValue(voice, stale, catalogs, "en")).toBe("en-male");
    expect(fieldValue(background, stale, catalogs, "en")).toBe("aurora");
    // A slide template is not a quiz video's.
    expect(fieldValue(template, stale, catalogs, "en")).toBe("quiz-neon");
    expect(fieldsOf("podcast", { voice_id_2: "gone" })).not.toHaveProperty("voice_id_2");
  });

  it("marks a community note's request community=true, and only that one", () => {
    expect(fieldsOf("mindmap", {}, { ...note, community: true })).toEqual({
      note_id: "n1",
      community: "true",
    });
    expect(fieldsOf("mindmap")).not.toHaveProperty("community");
  });

  it("words every kind, field and choice in English and Vietnamese", () => {
    for (const kind of STUDIO_KINDS) {
      const spec = kindSpec(kind);
      const keys = [spec.label, spec.description, spec.make];
      for (const field of spec.fields) {
        if ("label" in field) keys.push(field.label);
        if (field.type === "choice") keys.push(...field.choices.map((choice) => choice.label));
      }
      for (const key of keys) {
        expect(en[key], key).toBeTruthy();
        expect(vi[key], key).toBeTruthy();
      }
      // The kinds' names are Vietnamese words (with their diacritics), not the English left in place.
      if (kind !== "podcast") expect(vi[spec.label]).not.toBe(en[spec.label]);
    }
    expect(vi["studioKinds.kind.flashcards"]).toBe("Thẻ ghi nhớ");
  });
});

describe("studio downloads", () => {
  const file = (role: string, url: string, bytes = 100) =>
    ({ role, content_type: "application/octet-stream", bytes, url }) as Parameters<
      typeof downloadList
    >[0][number];

  it("lists every file of data.files, in order, named for people and saved under the note's title", () => {
    const items = downloadList(
      [
        file("apkg", "/media/outputs/t1/cards.apkg?expires=9&sig=a", 2048),
        file("moodle_xml", "/media/outputs/t1/quiz.xml?expires=9&sig=b"),
        file("srt", "https://r2.example/outputs/t1/captions.srt?X-Amz-Signature=c"),
        file("chapters", "/media/outputs/t1/podcast.chapters.json?sig=d"),
      ],
      fileBaseName("Sông Mê Kông: 4,350 km"),
    );
    expect(items.map((item) => [item.label && en[item.label], item.filename, item.bytes])).toEqual([
      ["Anki deck (.apkg)", "Sông-Mê-Kông-4-350-km.apkg", 2048],
      ["Moodle XML", "Sông-Mê-Kông-4-350-km.xml", 100],
      ["Subtitles (SRT)", "Sông-Mê-Kông-4-350-km.srt", 100],
      ["Chapters (JSON)", "Sông-Mê-Kông-4-350-km.json", 100],
    ]);
    expect(items[0]?.href).toBe("/media/outputs/t1/cards.apkg?expires=9&sig=a");
    expect(items[2] && vi[items[2].label ?? "studioKinds.downloads"]).toBe("Phụ đề (SRT)");
  });

  it("names every role the protocol knows, in both languages; a newer role shows as itself", () => {
    for (const role of CONTENT_OUTPUT_ROLES) {
      const [item] = downloadList([file(role, `/media/o/x.${role}`)], "x");
      expect(item?.label, role).not.toBeNull();
      if (item?.label) expect([en[item.label], vi[item.label]].every(Boolean), role).toBe(true);
    }
    expect(downloadList([file("hologram", "/media/o/x")], "x")).toEqual([
      { role: "hologram", label: null, href: "/media/o/x", filename: "x", bytes: 100 },
    ]);
  });

  it("reads a link's extension and a role's file", () => {
    expect(extensionOf("/media/outputs/6f1c/deck.PDF?expires=1&sig=x")).toBe("pdf");
    expect(extensionOf("/media/outputs/6f1c/noextension")).toBe("");
    const files = [file("vtt", "/a.vtt"), file("video", "/b.mp4")];
    expect(fileOf(files, "video")).toBe("/b.mp4");
    expect(fileOf(files, "png")).toBeNull();
    expect(fileBaseName("!!!")).toBe("voxedge");
  });
});

describe("studio task view", () => {
  it("reads waiting, working with step, progress and time left, and both failure statuses", () => {
    expect(taskView({ status: "PENDING" })).toEqual({ phase: "waiting" });
    expect(
      taskView({ status: "PROCESSING", step: "rendering_video", progress: 41.6, estimated_time: 12 }),
    ).toEqual({ phase: "working", step: "rendering_video", percent: 42, etaSec: 12 });
    expect(taskView({ status: "PROCESSING" })).toEqual({
      phase: "working",
      step: null,
      percent: null,
      etaSec: null,
    });
    const failure = {
      error: "note too short",
      error_key: "note_too_short",
      message: "2 sentences, 3 needed",
    };
    for (const status of ["FAILURE", "FAIL"]) {
      const result = { status, ...failure } as unknown as Parameters<typeof taskView>[0];
      expect(taskView(result)).toEqual({
        phase: "failed",
        errorKey: "note_too_short",
        error: failure.error,
        message: failure.message,
      });
      expect(isTerminal(result)).toBe(true);
    }
    expect(isTerminal({ status: "PROCESSING", progress: 99 })).toBe(false);
    expect(isTerminal(null)).toBe(false);
  });

  it("hands a success's data and files to the previews", () => {
    const files = [{ role: "video" as const, content_type: "video/mp4", bytes: 9, url: "/media/v.mp4" }];
    expect(
      taskView({ status: "SUCCESS", data: { video_url: "/media/v.mp4", duration: 8.2, files } }),
    ).toEqual({
      phase: "done",
      durationSec: 8.2,
      data: { video_url: "/media/v.mp4", duration: 8.2, files },
      files,
    });
    expect(taskView({ status: "SUCCESS", data: {} })).toMatchObject({ durationSec: null, files: [] });
  });
});

describe("studio previews' data", () => {
  it("reads flash cards, quiz questions and chapters, leaving out entries of another shape", () => {
    expect(
      cardsOf({
        cards: [{ front: "Mekong", back: "a river", source_sentence: "…", tags: ["geo"] }, { front: 3 }, "x"],
      }),
    ).toEqual([{ front: "Mekong", back: "a river" }]);
    expect(cardsOf({})).toEqual([]);
    const question = {
      question: "How long?",
      options: ["1", "2", "3", "4"],
      answer_index: 2,
      explanation: "It is.",
    };
    expect(
      questionsOf({
        questions: [
          question,
          { ...question, answer_index: 4 },
          { ...question, answer_index: 1.5 },
          { ...question, options: "no" },
        ],
      }),
    ).toEqual([
      { question: "How long?", options: ["1", "2", "3", "4"], answerIndex: 2, explanation: "It is." },
    ]);
    expect(
      chaptersOf({
        chapters: [
          { title: "Threats", start: 95.5, end: 140 },
          { title: "Intro", start: 0, end: 30 },
          { title: "Bad", start: -1 },
        ],
      }),
    ).toEqual([
      { title: "Intro", start: 0 },
      { title: "Threats", start: 95.5 },
    ]);
    expect(newNoteOf({ note_id: "n-new" })).toBe("n-new");
    expect(newNoteOf({})).toBeNull();
  });

  it("reads the study guide's Markdown as headings, lists and paragraphs, HTML kept as text", () => {
    const blocks = markdownBlocks(
      "# Guide\n\nThe **Mekong** river.\nIt floods.\n\n## Terms\n- **Delta**: land\n- Dam\n1. First\n2) Second\n\n<script>alert(1)</script> <img src=x onerror=alert(2)>",
    );
    expect(blocks).toEqual([
      { type: "heading", level: 1, text: [{ text: "Guide", bold: false }] },
      {
        type: "paragraph",
        text: [
          { text: "The ", bold: false },
          { text: "Mekong", bold: true },
          { text: " river. It floods.", bold: false },
        ],
      },
      { type: "heading", level: 2, text: [{ text: "Terms", bold: false }] },
      {
        type: "list",
        ordered: false,
        items: [
          [
            { text: "Delta", bold: true },
            { text: ": land", bold: false },
          ],
          [{ text: "Dam", bold: false }],
        ],
      },
      {
        type: "list",
        ordered: true,
        items: [[{ text: "First", bold: false }], [{ text: "Second", bold: false }]],
      },
      {
        type: "paragraph",
        text: [{ text: "<script>alert(1)</script> <img src=x onerror=alert(2)>", bold: false }],
      },
    ]);
    expect(markdownBlocks("###### Deep")[0]).toMatchObject({ type: "heading", level: 4 });
  });
});

describe("catalog names in the console's language", () => {
  const entries = [
    ...VOICES.map((v) => ["voice", v.voice_id, v.name] as const),
    ...BACKGROUNDS.map((b) => ["background", b.bg_id, b.name] as const),
    ...TEMPLATES.map((t) => ["template", t.template_id, t.name] as const),
  ];

  it("names every voice, background and template of the catalog in Vietnamese, and in English as the API does", () => {
    for (const [kind, id, apiName] of entries) {
      const vi = catalogName(kind, id, apiName, "vi");
      expect(vi, `${kind} ${id}`).not.toBe(apiName);
      expect(vi, `${kind} ${id}`).not.toMatch(/\b(English|Vietnamese|male|female|gradient|accent|cards)\b/);
      expect(catalogName(kind, id, apiName, "en")).toBe(apiName);
    }
    expect(catalogName("voice", "vi-male", "Minh (Vietnamese, male)", "vi")).toBe("Minh (tiếng Việt, nam)");
  });

  it("shows a deployment's own entry, which the console has no name for, by the API's name", () => {
    expect(catalogName("voice", "de-male", "Lukas (German, male)", "vi")).toBe("Lukas (German, male)");
    // ids are per catalog: a background's id is not a voice's
    expect(catalogName("voice", "aurora", "Aurora voice", "vi")).toBe("Aurora voice");
  });
});
