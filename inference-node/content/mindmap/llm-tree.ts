/**
 * A mind map drawn by the configured OpenAI-compatible chat model (VOXEDGE_LLM_URL): it names the
 * branches in the note's language; the root stays the note's title and the bounds are ours.
 */
import { z } from "zod";
import type { NoteSnapshot } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { chatComplete, extractJson, type LlmConfig } from "../llm.ts";
import { LANGUAGE_NAMES } from "../script.ts";
import { noteLanguage, splitWords } from "../text.ts";
import { MINDMAP_LABEL_MAX_CHARS, shortLabel } from "./labels.ts";
import {
  boundTree,
  MINDMAP_MAX_CHILDREN,
  MINDMAP_MAX_DEPTH,
  type MindMap,
  type MindMapNode,
  requireBranches,
  rootLabel,
} from "./tree.ts";

interface LlmBranch {
  label: string;
  children?: LlmBranch[] | undefined;
}
const LlmBranch: z.ZodType<LlmBranch> = z.lazy(() =>
  z.object({ label: z.string(), children: z.array(LlmBranch).optional() }),
);
const LlmMindMap = z.object({ branches: z.array(LlmBranch).min(1) });

const toNode = (branch: LlmBranch): MindMapNode => ({
  label: branch.label,
  children: (branch.children ?? []).map(toNode),
});

/**
 * Asks the chat model for the branches of `note`'s mind map. Fails `note_too_short` on an empty
 * note (before any call) and `llm_failed` on an unusable answer.
 *
 * @example
 * const map = await llmMindMap(config, note, signal); // { source: "llm", root: { label: note.title, ... } }
 */
export async function llmMindMap(
  config: LlmConfig,
  note: NoteSnapshot,
  signal: AbortSignal,
): Promise<MindMap> {
  if (splitWords(note.content).length === 0) {
    throw new ContentError("note_too_short", "the note has nothing to draw a mind map from");
  }
  const language = noteLanguage(note.language, note.content);
  const answer = await chatComplete(
    config,
    [
      {
        role: "system",
        content:
          `You draw a mind map of a note in ${LANGUAGE_NAMES[language]}. Use only the note's ideas. ` +
          `At most ${MINDMAP_MAX_CHILDREN} branches per node and ${MINDMAP_MAX_DEPTH} levels; every label a short ` +
          `phrase of at most ${MINDMAP_LABEL_MAX_CHARS} characters, no full sentences. Answer with JSON only: ` +
          '{"branches": [{"label": "...", "children": [{"label": "...", "children": []}]}]}, ' +
          `labels in ${LANGUAGE_NAMES[language]}.`,
      },
      { role: "user", content: `Title: ${note.title}\n\n${note.content.slice(0, 24_000)}` },
    ],
    signal,
  );
  const parsed = LlmMindMap.safeParse(extractJson(answer));
  if (!parsed.success) throw new ContentError("llm_failed", "the LLM's answer is not a list of branches");
  const label = rootLabel(note);
  const root = boundTree({ label, children: parsed.data.branches.map(toNode) });
  if (root.children.length === 0) throw new ContentError("llm_failed", "the LLM's branches are all empty");
  return {
    title: note.title.trim() || shortLabel(label),
    language,
    source: "llm",
    root: requireBranches(root),
  };
}
