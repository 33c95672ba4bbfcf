/**
 * The mind map kind in the content engine: the note in the asked language, its tree (extractive, or
 * the chat model's), then the five files (JSON, OPML, Markdown, SVG, PNG).
 */
import type { ContentKindStages } from "../content-kinds.ts";
import type { ContentData } from "../task-types.ts";
import { translatedNote, translationStage } from "../translation-stage.ts";
import { writeMindMapFiles } from "./files.ts";
import { llmMindMap } from "./llm-tree.ts";
import { extractiveMindMap, type MindMap, type MindMapNode } from "./tree.ts";

/**
 * The tree goes into the result data (and so into every poll and webhook) only up to this size of
 * JSON; a bigger map is in mindmap.json alone.
 */
export const MINDMAP_DATA_ROOT_MAX_BYTES = 4096;

const nodeCount = (node: MindMapNode): number =>
  1 + node.children.reduce((sum, child) => sum + nodeCount(child), 0);

/** What a poll shows of a map: its facts, and the tree itself when it is small. */
export function mindMapData(noteId: string, map: MindMap): ContentData {
  const root = JSON.stringify(map.root);
  return {
    note_id: noteId,
    title: map.title,
    language: map.language,
    source: map.source,
    text_source: map.source === "llm" ? "llm" : "extractive",
    node_count: nodeCount(map.root),
    ...(new TextEncoder().encode(root).byteLength <= MINDMAP_DATA_ROOT_MAX_BYTES ? { root: map.root } : {}),
  };
}

export const mindMapStages: ContentKindStages<"mindmap"> = {
  plan: (params, deps) => [
    ...translationStage(params.note, params.language),
    { step: "building_mindmap", key: deps.llm ? "script_llm" : "script_extractive", units: 1 },
    { step: "building_mindmap", key: "mindmap_picture", units: 1 },
  ],
  async run(params, deps, signal, workDir, tracker) {
    const note = await translatedNote(params.note, params.language, deps, signal, tracker);
    tracker.start(deps.llm ? "script_llm" : "script_extractive");
    const map = deps.llm ? await llmMindMap(deps.llm, note, signal) : extractiveMindMap(note);
    tracker.finish();
    signal.throwIfAborted();
    tracker.start("mindmap_picture");
    const files = await writeMindMapFiles(map, workDir, deps.tools, signal);
    tracker.finish();
    return {
      data: mindMapData(params.note.note_id, map),
      files: files.map((file) => ({ role: file.format, path: file.path, contentType: file.contentType })),
    };
  },
};
