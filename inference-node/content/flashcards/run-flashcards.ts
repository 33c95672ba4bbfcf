/**
 * A flashcards task on the node: cards from the note, then the three files in the task's folder
 * (the kind's stages, flashcards-stages.ts, call it; the render task uploads `files`).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NoteSnapshot } from "../../../protocol/content.ts";
import type { FlashcardOptions } from "../../../protocol/flashcards-params.ts";
import type { LlmConfig } from "../llm.ts";
import { flashcardsApkg, flashcardsCsv, flashcardsJson } from "./export.ts";
import { type Flashcard, generateFlashcards } from "./generate.ts";

export type FlashcardFileRole = "json" | "csv" | "apkg";

export interface FlashcardFile {
  role: FlashcardFileRole;
  path: string;
  contentType: string;
}

export interface FlashcardsOutput {
  data: {
    note_id: string;
    title: string;
    language: "en" | "vi";
    difficulty: FlashcardOptions["difficulty"];
    card_count: number;
    text_source: "extractive" | "llm";
    cards: Flashcard[];
  };
  files: FlashcardFile[];
}

/**
 * @example
 * const output = await runFlashcards({ note, count: 10, difficulty: "easy" }, { llm: null }, signal, workDir);
 * output.files.map((f) => f.role); // ["json", "csv", "apkg"]
 */
export async function runFlashcards(
  params: { note: NoteSnapshot } & FlashcardOptions,
  deps: { llm: LlmConfig | null },
  signal: AbortSignal,
  workDir: string,
): Promise<FlashcardsOutput> {
  const { note, ...options } = params;
  const set = await generateFlashcards(note, options, { llm: deps.llm, signal });
  const contents: Record<FlashcardFileRole, { bytes: string | Uint8Array; contentType: string }> = {
    json: { bytes: flashcardsJson(set), contentType: "application/json; charset=utf-8" },
    csv: { bytes: flashcardsCsv(set.cards), contentType: "text/csv; charset=utf-8" },
    // No registered media type exists for Anki packages; the .apkg file name tells Anki what it is.
    apkg: {
      bytes: await flashcardsApkg(set, { seed: note.note_id }),
      contentType: "application/octet-stream",
    },
  };
  const files: FlashcardFile[] = [];
  for (const [role, { bytes, contentType }] of Object.entries(contents) as [
    FlashcardFileRole,
    (typeof contents)[FlashcardFileRole],
  ][]) {
    signal.throwIfAborted();
    const path = join(workDir, `flashcards.${role}`);
    await writeFile(path, bytes);
    files.push({ role, path, contentType });
  }
  return {
    data: {
      note_id: note.note_id,
      title: set.title,
      language: set.language,
      difficulty: set.difficulty,
      card_count: set.cards.length,
      text_source: set.source,
      cards: set.cards,
    },
    files,
  };
}
