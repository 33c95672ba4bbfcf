/** A slide task: outline → (translation) → layout → PPTX + PDF. */
import { join } from "node:path";
import type { SlideParams } from "../../protocol/content.ts";
import { outlineDeck, translateOutline } from "./deck.ts";
import type { ProgressTracker } from "./progress.ts";
import { layoutDeck } from "./slides-layout.ts";
import { writePdf } from "./slides-pdf.ts";
import { writePptx } from "./slides-pptx.ts";
import type { ContentDeps, ContentOutput } from "./task-types.ts";
import { noteLanguage } from "./text.ts";
import { slideTheme } from "./themes.ts";

export const PPTX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

/** The deck is asked in another language than the note's. */
export function needsTranslation(params: SlideParams): boolean {
  return (
    params.language !== null && params.language !== noteLanguage(params.note.language, params.note.content)
  );
}

/**
 * Outline, translation when asked, then the PPTX and the PDF from one layout.
 *
 * @example
 * const output = await runSlides(params, deps, signal, workDir, tracker);
 */
export async function runSlides(
  params: SlideParams,
  deps: ContentDeps,
  signal: AbortSignal,
  workDir: string,
  tracker: ProgressTracker,
): Promise<ContentOutput> {
  const theme = slideTheme(params.template_id);
  tracker.start("script_extractive");
  const outline = outlineDeck(params.note, params.slide_count, params.community);
  const language = params.language ?? outline.language;
  tracker.resize("slides", outline.slides.length);
  tracker.finish();

  let translated = outline;
  if (language !== outline.language) {
    tracker.start("translate");
    translated = await translateOutline(outline, language, deps.translate, signal);
    tracker.finish();
  }
  signal.throwIfAborted();
  tracker.start("slides");
  const layouts = layoutDeck(translated, theme);
  const firstSlide = translated.slides[0];
  const title = params.note.title.trim() || (firstSlide?.kind === "title" ? firstSlide.title : "Slides");
  const meta = { title, language };
  const pptxPath = join(workDir, "slides.pptx");
  const pdfPath = join(workDir, "slides.pdf");
  await writePptx(layouts, meta, theme.pptxFont, pptxPath);
  tracker.advance(0.6);
  await writePdf(layouts, meta, pdfPath);
  tracker.finish(layouts.length);

  return {
    data: {
      note_id: params.note.note_id,
      title,
      language,
      slide_count: layouts.length,
      template_id: params.template_id,
      community: params.community,
      text_source: "extractive",
    },
    files: [
      { role: "pptx", path: pptxPath, contentType: PPTX_CONTENT_TYPE },
      { role: "pdf", path: pdfPath, contentType: "application/pdf" },
    ],
  };
}
