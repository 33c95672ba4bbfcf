import type { TranscriptionResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { EXPORT_FORMATS, type ExportFormat, exportFile } from "./exports.ts";

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Buttons that save the transcript as TXT, SRT, VTT or JSON, made here from the result. */
export function Downloads(props: {
  result: TranscriptionResult;
  baseName: string;
  speakerNames: Record<string, string>;
}) {
  const save = (format: ExportFormat) =>
    download(exportFile(format, props.result, props.speakerNames), `${props.baseName}.${format}`);
  return (
    <fieldset class="row wrap">
      <legend class="visually-hidden">{t("transcript.downloads")}</legend>
      {EXPORT_FORMATS.map((format) => (
        <button key={format} type="button" class="button button-secondary" onClick={() => save(format)}>
          {t("transcript.download", { format: format.toUpperCase() })}
        </button>
      ))}
    </fieldset>
  );
}
