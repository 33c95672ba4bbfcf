import { useRef, useState } from "preact/hooks";
import { LevelMeter } from "../audio/level-meter.tsx";
import { LIVE_RATE } from "../audio/pcm16.ts";
import { useMicrophone } from "../audio/use-microphone.ts";
import { pcm16Wav } from "../audio/wav.ts";
import { t } from "../i18n/i18n.ts";
import { CLIP_MAX_SEC, CLIP_MIN_SEC } from "../job/voice-clip.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";

/** The microphone's chunks are PCM16 LE mono at LIVE_RATE (audio/microphone.ts). */
const BYTES_PER_SECOND = LIVE_RATE * 2;

/** The recorded chunks as one WAV file of 16 kHz mono samples. */
function recordingFile(chunks: readonly ArrayBuffer[]): File {
  const pcm = new Int16Array(chunks.reduce((bytes, chunk) => bytes + chunk.byteLength, 0) / 2);
  let at = 0;
  for (const chunk of chunks) {
    pcm.set(new Int16Array(chunk), at);
    at += chunk.byteLength / 2;
  }
  return new File([pcm16Wav(pcm, LIVE_RATE)], "recording.wav", { type: "audio/wav" });
}

/**
 * Records the voice to enrol from the microphone: up to CLIP_MAX_SEC (it stops by itself there), at
 * least CLIP_MIN_SEC, handed over as a WAV file; a shorter take is refused here, in words.
 */
export function VoiceRecorder(props: { onRecorded: (file: File, seconds: number) => void }) {
  const chunks = useRef<ArrayBuffer[]>([]);
  const bytes = useRef(0);
  /** Off once a take is finished: chunks still queued in the audio graph are not part of it. */
  const recording = useRef(false);
  const [seconds, setSeconds] = useState(0);
  const [tooShort, setTooShort] = useState(false);
  const finish = () => {
    recording.current = false;
    mic.stop();
    const taken = chunks.current;
    chunks.current = [];
    if (bytes.current / BYTES_PER_SECOND < CLIP_MIN_SEC) return setTooShort(true);
    props.onRecorded(recordingFile(taken), bytes.current / BYTES_PER_SECOND);
  };
  const mic = useMicrophone((pcm) => {
    if (!recording.current) return;
    chunks.current.push(pcm);
    bytes.current += pcm.byteLength;
    setSeconds(bytes.current / BYTES_PER_SECOND);
    if (bytes.current >= CLIP_MAX_SEC * BYTES_PER_SECOND) finish();
  });
  const start = () => {
    chunks.current = [];
    bytes.current = 0;
    setSeconds(0);
    setTooShort(false);
    recording.current = true;
    void mic.start();
  };
  const on = mic.state !== "off";

  return (
    <div class="stack">
      <div class="row wrap">
        <button
          type="button"
          class={`button ${on ? "button-danger" : "button-secondary"}`}
          onClick={on ? finish : start}
        >
          {on ? t("speakers.stopRecording", { time: formatClock(seconds) }) : t("speakers.record")}
        </button>
      </div>
      {on && <LevelMeter id="speaker-level" level={mic.level} active={mic.state === "on"} />}
      {tooShort && (
        <p class="note note-warn" role="alert">
          {t("speakers.recordingTooShort", { min: CLIP_MIN_SEC })}
        </p>
      )}
      <ErrorNote error={mic.error} />
    </div>
  );
}
