/**
 * What a person gets from note translation and shorts, from one English and one Vietnamese study note:
 * the translated note word for word (diacritics exact, structure kept), and shorts whose frame, length
 * and caption sidecars say the note's own words. The translator is a LibreTranslate-compatible double
 * that answers from the fixture's sentence pairs, so what it returns is real text in the other language.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { type ContentDeps, runContentTask } from "../../inference-node/content/run-content-task.ts";
import type { TranslateFn } from "../../inference-node/content/script.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { captionBox, frameAt, sidecarCues, spokenWords } from "./caption-sidecar-helpers.ts";
import { probe, recordingContext } from "./content-helpers.ts";
import { STUDY_NOTE_EN, STUDY_NOTE_VI, STUDY_PAIRS } from "./fixtures/studio-notes-notetr.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

let root: string;
let dictionary: FakeServer;
let translate: TranslateFn;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "studio-quality-notetr-"));
  const table = new Map<string, string>();
  for (const [en, vi] of STUDY_PAIRS) {
    table.set(`vi:${en}`, vi);
    table.set(`en:${vi}`, en);
  }
  dictionary = await startServer((req, res) => {
    const body = req.body as { q?: string; target?: string };
    const answer = table.get(`${body.target}:${body.q}`);
    if (answer === undefined) return sendJson(res, 500, { error: `no pair for ${JSON.stringify(body.q)}` });
    sendJson(res, 200, { translatedText: answer });
  });
  const translator = createTranslator({ backend: "libretranslate", url: dictionary.url });
  if (!translator) throw new Error("no translator");
  translate = (text, from, to, signal) => translator.translate(text, from, to, signal);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await dictionary.close();
});

const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
  translate,
});

describe("studio quality: note translation", () => {
  it.each([
    ["English", STUDY_NOTE_EN, STUDY_NOTE_VI, "vi"],
    ["Vietnamese", STUDY_NOTE_VI, STUDY_NOTE_EN, "en"],
  ] as const)("translates the %s note into the other, word for word", async (_name, source, expected, language) => {
    const result = await runContentTask(
      { kind: "note_translation", params: { note: source, language } },
      deps(),
      recordingContext().ctx,
    );
    try {
      const markdown = await readFile(result.files[0]?.path ?? "", "utf8");
      // exactly the other note: every heading, list marker and sentence, every diacritic (NFC)
      expect(markdown).toBe(`# ${expected.title}\n\n${expected.content}\n`);
      expect(markdown.normalize("NFC")).toBe(markdown);
      expect(result.data).toMatchObject({ title: expected.title, language, content: expected.content });
      // 3 headings and 10 sentences, each its own request; the title one more
      expect(result.data.sentence_count).toBe(STUDY_PAIRS.length);
    } finally {
      await result.cleanup();
    }
  });
});

/** The note's words (and its title's), as a reader would find them in the captions. */
const wordsOf = (note: NoteSnapshot) => new Set(spokenWords(`${note.title} ${note.content}`));

describe("studio quality: shorts", () => {
  it.each([
    ["English", STUDY_NOTE_EN, "en-female", "16:9", 1920, 1080],
    ["Vietnamese", STUDY_NOTE_VI, "vi-male", "1:1", 1080, 1080],
  ] as const)("makes the %s note's short whose captions say the note's own words", async (_name, note, voice_id, aspect, width, height) => {
    const result = await runContentTask(
      { kind: "shorts", params: { note, voice_id, clip_duration: 12, bg_id: "aurora", aspect } },
      deps(),
      recordingContext().ctx,
    );
    try {
      const [video, , vtt] = result.files.map((f) => f.path) as [string, string, string];
      const media = probe(video);
      expect(media.streams.find((s) => s.codec_type === "video")).toMatchObject({ width, height });
      expect(media.duration).toBeGreaterThan(5);
      expect(media.duration).toBeLessThanOrEqual(12.05);
      const cues = sidecarCues(vtt);
      const said = spokenWords(cues.map((cue) => cue.text).join(" "));
      expect(said.length).toBeGreaterThanOrEqual(12);
      // every captioned word is the note's, diacritics exact (a lost tone mark would not match)
      const words = wordsOf(note);
      expect(said.filter((word) => !words.has(word))).toEqual([]);
      if (note.language === "vi")
        expect(said.some((word) => /[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệ]/.test(word))).toBe(true);
      expect(cues.at(-1)!.end).toBeLessThanOrEqual(media.duration + 0.01);
      // and the line being said is on screen, inside the frame
      const line = cues[1]!;
      const caption = captionBox(
        frameAt(video, (line.start + line.end) / 2, width, height),
        width,
        height,
        height / 2,
      );
      expect(caption?.pixels ?? 0).toBeGreaterThan(500);
      expect(caption!.left).toBeGreaterThan(0);
      expect(caption!.right).toBeLessThan(width - 1);
    } finally {
      await result.cleanup();
    }
  });
});
