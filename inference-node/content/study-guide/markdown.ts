/** The study guide as Markdown: a title and one `##` section each, the timeline only when dated. */
import type { StudyGuide } from "./guide.ts";
import { GUIDE_LABELS } from "./labels.ts";

/**
 * @example
 * studyGuideMarkdown(guide); // "# Rivers\n\n## Summary\n\nThe Mekong ...\n\n## Key terms\n\n- **Mekong**: ..."
 */
export function studyGuideMarkdown(guide: StudyGuide): string {
  const labels = GUIDE_LABELS[guide.language];
  const sections = [
    `# ${guide.title}`,
    `## ${labels.summary}\n\n${guide.summary.join(" ")}`,
    `## ${labels.keyTerms}\n\n${guide.key_terms.map((t) => `- **${t.term}**: ${t.definition}`).join("\n")}`,
    `## ${labels.questions}\n\n${guide.questions.map((q, i) => `${i + 1}. ${q}`).join("\n")}`,
    ...(guide.timeline.length > 0
      ? [`## ${labels.timeline}\n\n${guide.timeline.map((e) => `- **${e.date}**: ${e.event}`).join("\n")}`]
      : []),
  ];
  return `${sections.join("\n\n")}\n`;
}
