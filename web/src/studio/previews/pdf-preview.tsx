import { t } from "../../i18n/i18n.ts";
import { inlinePreviewUrl } from "../task-view.ts";

/** A deck's PDF in a frame, asked for inline (the download link asks for an attachment). */
export function PdfPreview(props: { pdf: string }) {
  return (
    <iframe
      class="pdf-preview"
      src={inlinePreviewUrl(props.pdf)}
      title={t("studio.pdfPreview")}
      loading="lazy"
    />
  );
}
