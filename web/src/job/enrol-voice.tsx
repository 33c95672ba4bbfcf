import { useState } from "preact/hooks";
import { speakersApi } from "../api/client.ts";
import type { Segment } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";
import { clipFromAudio, voiceSpan } from "./voice-clip.ts";

/**
 * Enrols one speaker of a job as a named voice (POST /v1/speakers), from the longest stretch they
 * speak alone in the job's stored audio; later jobs name them with `known_speakers`.
 */
export function EnrolVoice(props: {
  label: string;
  name: string;
  audioUrl: string;
  segments: readonly Segment[];
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const span = voiceSpan(props.segments, props.label);
  const name = props.name.trim();
  if (!span) return <p class="muted small">{t("speakers.noVoiceClip")}</p>;

  const enrol = async () => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const speaker = await speakersApi.enrolReference(name, await clipFromAudio(props.audioUrl, span));
      setDone(
        t("speakers.enrolledVoice", {
          name: speaker.name,
          from: formatClock(span.start),
          to: formatClock(span.end),
        }),
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="enrol-voice">
      <button type="button" class="button secondary" disabled={busy || name === ""} onClick={enrol}>
        {busy
          ? t("speakers.enrolling")
          : name === ""
            ? t("speakers.enrolVoiceUnnamed")
            : t("speakers.enrolVoice", { name })}
      </button>
      <ErrorNote error={error} />
      {done && (
        <p class="note" role="status">
          {done}
        </p>
      )}
    </div>
  );
}
