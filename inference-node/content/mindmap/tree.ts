/**
 * The mind map of a note: the root is the note's title and the branches follow the note's own
 * structure (markdown headings and lists) when it has one, else its most central sentences with
 * their key phrases. A configured chat model may draw the branches instead (llm-tree.ts).
 * Every map is bounded the same way, whoever made it.
 */
import type { NoteSnapshot } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { keyTerms, lowerCaseWords, rankSentences } from "../keywords.ts";
import type { ContentLanguage } from "../script.ts";
import { noteSentences } from "../script.ts";
import { noteLanguage } from "../text.ts";
import { sameLabel, shortLabel } from "./labels.ts";
import { noteOutline, type OutlineNode } from "./outline.ts";

/** Levels below the root at most: title → topic → point → detail; deeper reads as a document. */
export const MINDMAP_MAX_DEPTH = 3;
/**
 * Children of one node at most: about what a reader takes in at a glance (Miller's 7 ± 2), and it
 * keeps a picture of 7 × 7 × 7 leaves the tallest one can get.
 */
export const MINDMAP_MAX_CHILDREN = 7;
/** Key phrases under one sentence at most: more starts to repeat the sentence word by word. */
export const MINDMAP_TERMS_PER_SENTENCE = 3;

export interface MindMapNode {
  label: string;
  children: MindMapNode[];
}

export interface MindMap {
  /** The note's title as written (the root's label is its short form). */
  title: string;
  language: ContentLanguage;
  /** outline: the note's headings and lists; key_phrases: its central sentences; llm: the chat model. */
  source: "outline" | "key_phrases" | "llm";
  root: MindMapNode;
}

/**
 * `children` with any child that says its parent's `label` again replaced by its own children: a
 * model often opens with the title as the first branch, and the picture would show it twice.
 */
function withoutParentRepeats(label: string, children: readonly MindMapNode[]): MindMapNode[] {
  return children.flatMap((child) =>
    sameLabel(shortLabel(child.label), label) ? withoutParentRepeats(label, child.children) : [child],
  );
}

/**
 * `node` within the bounds: labels shortened, empty and repeated siblings dropped, a child repeating
 * its parent lifted out (its children stay), at most MINDMAP_MAX_CHILDREN children per node and
 * MINDMAP_MAX_DEPTH levels below the root.
 */
export function boundTree(node: MindMapNode, depth = 0): MindMapNode {
  const children: MindMapNode[] = [];
  const label = shortLabel(node.label);
  if (depth < MINDMAP_MAX_DEPTH) {
    for (const child of withoutParentRepeats(label, node.children)) {
      if (children.length >= MINDMAP_MAX_CHILDREN) break;
      const childLabel = shortLabel(child.label);
      if (!childLabel || children.some((c) => sameLabel(c.label, childLabel))) continue;
      children.push(boundTree({ label: childLabel, children: child.children }, depth + 1));
    }
  }
  return { label, children };
}

/** Up to `count` of `items`, the best by `scores`, back in their original order. */
function best<T>(items: readonly T[], scores: readonly number[], count: number): T[] {
  return items
    .map((item, i) => ({ item, i, score: scores[i] ?? 0 }))
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map(({ item }) => item);
}

/**
 * A sentence as a branch: its short form over its key phrases (names and numbers first), leaving out
 * single letters and the title's words said again.
 */
function sentenceBranch(
  sentence: string,
  language: ContentLanguage,
  title: string,
  lowerCased: ReadonlySet<string>,
): MindMapNode {
  const label = shortLabel(sentence);
  const terms = keyTerms(sentence, language, lowerCased)
    .filter((term) => [...term.text].length > 1 && !sameLabel(term.text, title))
    .slice(0, MINDMAP_TERMS_PER_SENTENCE);
  return { label, children: terms.map((term) => ({ label: term.text, children: [] })) };
}

/**
 * The `count` most central sentences, in note order, as branches. A sentence that is the title (an
 * untitled note's title is its first sentence) is the root already, so the next one takes its place.
 */
function sentenceBranches(sentences: readonly string[], count: number, how: BranchContext): MindMapNode[] {
  const scores = rankSentences(sentences);
  const lowerCased = lowerCaseWords(sentences);
  const title = shortLabel(how.title);
  const candidates = sentences
    .map((sentence, i) => ({ sentence, score: scores[i] ?? 0 }))
    .filter(({ sentence }) => !sameLabel(shortLabel(sentence), title));
  return best(
    candidates.map((c) => c.sentence),
    candidates.map((c) => c.score),
    count,
  ).map((s) => sentenceBranch(s, how.language, how.title, lowerCased));
}

interface BranchContext {
  language: ContentLanguage;
  title: string;
}

/** A heading or list item over its prose (as many central sentences as its sub-items leave room for) and its sub-items. */
function outlineChildren(node: OutlineNode, how: BranchContext): MindMapNode[] {
  const room = Math.max(0, MINDMAP_MAX_CHILDREN - node.children.length);
  return [
    ...sentenceBranches(node.sentences, room, how),
    ...node.children.map((child) => ({ label: child.text, children: outlineChildren(child, how) })),
  ];
}

/** The root's label: the title, else the note's first sentence. */
export function rootLabel(note: NoteSnapshot, sentences: readonly string[] = noteSentences(note)): string {
  return note.title.trim() || sentences[0] || "";
}

/** Fails `note_too_short` when the map would be a title alone. */
export function requireBranches(root: MindMapNode): MindMapNode {
  if (root.children.length === 0 || !root.label) {
    throw new ContentError("note_too_short", "the note has nothing to draw a mind map from");
  }
  return root;
}

/**
 * The note's mind map without a model.
 *
 * @example
 * const map = extractiveMindMap(note); // { title, language: "en", source: "outline", root: { label, children } }
 */
export function extractiveMindMap(note: NoteSnapshot): MindMap {
  const language = noteLanguage(note.language, note.content);
  const sentences = noteSentences(note);
  const outline = noteOutline(note.content, language);
  const label = rootLabel(note, sentences);
  // Prose before the first heading hangs off the root beside the sections.
  const how = { language, title: label };
  const branches = outline
    ? outlineChildren(outline, how)
    : sentenceBranches(sentences, MINDMAP_MAX_CHILDREN, how);
  return {
    title: note.title.trim() || shortLabel(label),
    language,
    source: outline ? "outline" : "key_phrases",
    root: requireBranches(boundTree({ label, children: branches })),
  };
}
