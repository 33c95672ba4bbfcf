/**
 * The flashcards kind in the content engine: the note in the asked language, then the cards and
 * their JSON, CSV and .apkg files (runFlashcards).
 */
import type { ContentKindStages } from "../content-kinds.ts";
import { translatedNote, translationStage } from "../translation-stage.ts";
import { runFlashcards } from "./run-flashcards.ts";

export const flashcardsStages: ContentKindStages<"flashcards"> = {
  plan: (params, deps) => [
    ...translationStage(params.note, params.language),
    { step: "building_cards", key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
  ],
  async run(params, deps, signal, workDir, tracker) {
    const note = await translatedNote(params.note, params.language, deps, signal, tracker);
    tracker.start(deps.llm ? "script_llm" : "script_extractive");
    const output = await runFlashcards(
      { note, count: params.count, difficulty: params.difficulty },
      { llm: deps.llm },
      signal,
      workDir,
    );
    tracker.finish();
    return output;
  },
};
