import { useState } from "preact/hooks";
import type { Segment } from "../api/types.ts";

/** Colours for speakers, in order of first appearance; readable on light and dark backgrounds. */
const PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f"];

/**
 * The speakers of a transcript in order of first appearance.
 *
 * @example speakersOf([{ speaker: "SPEAKER_01" }, { speaker: "SPEAKER_00" }]) // ["SPEAKER_01", "SPEAKER_00"]
 */
export function speakersOf(segments: readonly Pick<Segment, "speaker">[]): string[] {
  const seen: string[] = [];
  for (const { speaker } of segments) if (speaker && !seen.includes(speaker)) seen.push(speaker);
  return seen;
}

/**
 * The enrolled speaker's name (`speaker_name`, a job's known_speakers) of each label that has one: the
 * names a transcript shows before the user renames anyone.
 *
 * @example enrolledNames([{ speaker: "SPEAKER_00", speaker_name: "agent" }]) // { SPEAKER_00: "agent" }
 */
export function enrolledNames(
  segments: readonly Pick<Segment, "speaker" | "speaker_name">[],
): Record<string, string> {
  const names: Record<string, string> = {};
  for (const { speaker, speaker_name } of segments)
    if (speaker && speaker_name) names[speaker] = speaker_name;
  return names;
}

export function speakerColor(speakers: readonly string[], label: string): string {
  const index = Math.max(0, speakers.indexOf(label));
  return PALETTE[index % PALETTE.length] ?? "#2563eb";
}

/**
 * Names the user gave a job's speakers, kept in this browser only (localStorage, per task): renaming
 * is a reading aid, not a change to the stored result.
 */
export function useSpeakerNames(
  taskId: string,
): [Record<string, string>, (label: string, name: string) => void] {
  const storageKey = `voxedge.speakers.${taskId}`;
  const [names, setNames] = useState<Record<string, string>>(() => {
    try {
      return JSON.parse(localStorage.getItem(storageKey) ?? "{}") as Record<string, string>;
    } catch {
      return {};
    }
  });
  const rename = (label: string, name: string) => {
    const next = { ...names, [label]: name.trim() };
    if (!next[label]) delete next[label];
    setNames(next);
    localStorage.setItem(storageKey, JSON.stringify(next));
  };
  return [names, rename];
}
