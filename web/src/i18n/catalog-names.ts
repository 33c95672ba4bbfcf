import type { Lang } from "./i18n.ts";

/**
 * The content catalog's entries (protocol/content-params.ts: voices, backgrounds, templates) in the
 * console's languages. The API names them in English; a Vietnamese console would otherwise offer
 * "Minh (Vietnamese, male)". An entry the table lacks (a deployment's own) shows the API's name.
 */
export type CatalogKind = "voice" | "background" | "template";

const VI_NAMES: Readonly<Record<CatalogKind, Readonly<Record<string, string>>>> = {
  voice: {
    "en-male": "Ethan (tiếng Anh, nam)",
    "en-female": "Emma (tiếng Anh, nữ)",
    "en-gb-male": "Oliver (tiếng Anh Anh, nam)",
    "vi-male": "Minh (tiếng Việt, nam)",
    "vi-female": "Lan (tiếng Việt, nữ)",
  },
  background: {
    aurora: "Cực quang (chuyển màu xanh tím chậm)",
    sunset: "Hoàng hôn (chuyển màu ấm trôi chậm)",
    ocean: "Đại dương (quầng sáng xanh ngọc)",
    grid: "Lưới đêm (đường kẻ chuyển động chậm)",
    charcoal: "Than chì (nền tối trơn)",
  },
  template: {
    "slide-clean": "Trong sáng (nền trắng, điểm nhấn xanh dương)",
    "slide-midnight": "Nửa đêm (nền tối, điểm nhấn hổ phách)",
    "slide-forest": "Rừng (nền kem, điểm nhấn xanh lá)",
    "quiz-classic": "Cổ điển (thẻ trắng, đáp án hiện màu xanh lá)",
    "quiz-neon": "Neon (thẻ tối, viền phát sáng)",
  },
};

/**
 * The name of catalog entry `id` in `language`: the API's own (English) name unless the console has
 * this entry in that language.
 *
 * @example catalogName("voice", "vi-male", "Minh (Vietnamese, male)", "vi") // "Minh (tiếng Việt, nam)"
 */
export function catalogName(kind: CatalogKind, id: string, apiName: string, language: Lang): string {
  return (language === "vi" ? VI_NAMES[kind][id] : undefined) ?? apiName;
}
