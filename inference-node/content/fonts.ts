/**
 * The typeface of every rendered frame and PDF page: Be Vietnam Pro (SIL OFL), shipped as TTFs by
 * @expo-google-fonts/be-vietnam-pro, designed for Vietnamese, so every diacritic (ệ, ữ, ẫ, ...) has
 * its own glyph. libass gets the folder (`fontsdir`), pdfkit the file.
 */

import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The family name libass matches in ASS styles. */
export const FONT_FAMILY = "Be Vietnam Pro";

const packageDir = dirname(
  createRequire(import.meta.url).resolve("@expo-google-fonts/be-vietnam-pro/package.json"),
);

/** Folder holding only the bold face (ASS styles set Bold=-1). */
export const BOLD_FONT_DIR = join(packageDir, "700Bold");
export const BOLD_FONT_FILE = join(BOLD_FONT_DIR, "BeVietnamPro_700Bold.ttf");
export const REGULAR_FONT_FILE = join(packageDir, "400Regular", "BeVietnamPro_400Regular.ttf");
/** The one face of mind-map labels: SemiBold reads well small, and one face is one measure and one embed. */
export const SEMIBOLD_FONT_FILE = join(packageDir, "600SemiBold", "BeVietnamPro_600SemiBold.ttf");

/**
 * Escapes a path for an ffmpeg filter option, both levels: the option parser (\ ' :) and then the
 * graph parser (\ ' [ ] , ;).
 *
 * @example
 * filterPath("/tmp/a:b.ass"); // "/tmp/a\\\\:b.ass"
 */
export function filterPath(path: string): string {
  const optionLevel = path.replace(/[\\':]/g, (c) => `\\${c}`);
  return optionLevel.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}
