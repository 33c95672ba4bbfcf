import { t } from "../i18n/i18n.ts";
import { speakerColor } from "./speakers.ts";

/** One labelled field per speaker, to give each a name (kept in this browser). */
export function SpeakerNames(props: {
  speakers: string[];
  names: Record<string, string>;
  onRename: (label: string, name: string) => void;
}) {
  if (props.speakers.length === 0) return null;
  return (
    <fieldset class="speakers">
      <legend>{t("transcript.speakers")}</legend>
      {props.speakers.map((label) => (
        <div class="field speaker-field" key={label}>
          <label for={`speaker-${label}`}>
            <span
              class="swatch"
              style={{ background: speakerColor(props.speakers, label) }}
              aria-hidden="true"
            />
            {label}
          </label>
          <input
            id={`speaker-${label}`}
            type="text"
            maxLength={60}
            placeholder={t("transcript.speakerName")}
            value={props.names[label] ?? ""}
            onChange={(event) => props.onRename(label, (event.target as HTMLInputElement).value)}
          />
        </div>
      ))}
    </fieldset>
  );
}
