import type { TranscriptionResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { download } from "../ui/download.ts";
import { EXPORT_FORMATS, type ExportFormat, exportFile } from "./exports.ts";

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
