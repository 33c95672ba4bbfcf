import type { Segment } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { EnrolVoice } from "./enrol-voice.tsx";
import { speakerColor } from "./speakers.ts";

/**
 * One labelled field per speaker, to give each a name (kept in this browser); with the job's stored
 * audio, each named speaker's voice can be enrolled.
 */
export function SpeakerNames(props: {
  speakers: string[];
  names: Record<string, string>;
  onRename: (label: string, name: string) => void;
  /** The job's audio and segments; absent (a job from a URL keeps no audio): nothing to enrol from. */
  voices?: { audioUrl: string; segments: readonly Segment[] };
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
          {props.voices && (
            <EnrolVoice
              label={label}
              name={props.names[label] ?? ""}
              audioUrl={props.voices.audioUrl}
              segments={props.voices.segments}
            />
          )}
        </div>
      ))}
    </fieldset>
  );
}
