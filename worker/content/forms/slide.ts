import { parseSlideCountRange } from "../../../protocol/content.ts";
import { SlideForm } from "../../schemas/content.ts";
import { badField, type FormFields, flag, outputLanguage, templateId } from "../form-fields.ts";
import type { CreateForm } from "./create-form.ts";

function slideCount(fields: FormFields) {
  const value = fields.get("slide_count_range") ?? "5-8";
  const range = parseSlideCountRange(value);
  if (!range) {
    throw badField("invalid_slide_count_range", 'slide_count_range must be "a-b" with 1 <= a <= b <= 30');
  }
  return range;
}

/** POST /v2/create/slide: a slide deck, PPTX and PDF. */
export const slideForm: CreateForm<"slide"> = {
  path: "/slide",
  summary: "Make a slide deck (PPTX and PDF) from a note",
  form: SlideForm,
  madeIn: (params) => params.language ?? null,
  params: (fields: FormFields) => ({
    template_id: templateId(fields, "slide"),
    language: outputLanguage(fields, "slides"),
    slide_count: slideCount(fields),
    community: flag(fields, "community"),
  }),
};
