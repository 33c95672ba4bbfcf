import { useEffect, useRef, useState } from "preact/hooks";
import { speakersApi } from "../api/client.ts";
import type { Speaker } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { DeleteButton } from "../ui/delete-button.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock, formatDateTime } from "../ui/format.ts";
import { VoiceRecorder } from "./voice-recorder.tsx";

/** /speakers — enrol a voice from a recording, and list or delete this key's enrolled speakers. */
export default function SpeakersPage() {
  const [speakers, setSpeakers] = useState<Speaker[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  // Bumped after an enrolment or a delete: the list is read again.
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    setLoadError(null);
    // A read overtaken by a newer one is dropped: answering later, it would show the list as it was
    // before the enrolment or delete that asked for the newer read.
    let current = true;
    speakersApi.list().then(
      (list) => current && setSpeakers(list.data),
      (caught: unknown) => current && setLoadError(caught),
    );
    return () => {
      current = false;
    };
  }, [reloads]);

  return (
    <>
      <h1>{t("speakers.title")}</h1>
      <p class="muted">{t("speakers.intro")}</p>
      <EnrolForm onEnrolled={() => setReloads((n) => n + 1)} />
      <h2>{t("speakers.list")}</h2>
      <ErrorNote error={loadError} />
      {speakers === null && !loadError && <p class="muted">{t("speakers.loading")}</p>}
      {speakers?.length === 0 && <p class="note">{t("speakers.empty")}</p>}
      {speakers && speakers.length > 0 && (
        <ul class="plain-list">
          {speakers.map((speaker) => (
            <li key={speaker.id} class="history-item">
              <span class="history-name">{speaker.name}</span>
              <p class="muted small">
                {t("speakers.details", {
                  duration:
                    speaker.duration_sec === null
                      ? t("speakers.unknownLength")
                      : formatClock(speaker.duration_sec),
                  date: formatDateTime(speaker.created_at),
                })}
              </p>
              <div class="row wrap">
                <DeleteButton
                  label={t("speakers.deleteSpeaker")}
                  onDelete={() => speakersApi.delete(speaker.id)}
                  onDeleted={() => setReloads((n) => n + 1)}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function EnrolForm(props: { onEnrolled: () => void }) {
  const [name, setName] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  /** The take recorded here, when that is the clip to enrol (null for a chosen file): its length, and a URL to play it. */
  const [take, setTake] = useState<{ seconds: number; url: string } | null>(null);
  // a replaced take's URL (and the last one, when the page goes) is released
  useEffect(
    () => () => {
      if (take) URL.revokeObjectURL(take.url);
    },
    [take],
  );
  const fileInput = useRef<HTMLInputElement>(null);
  /** The file input keeps showing its choice until its value is cleared. */
  const clearFileInput = () => {
    if (fileInput.current) fileInput.current.value = "";
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const speaker = await speakersApi.enrol(name.trim(), file);
      setDone(speaker.name);
      setName("");
      setFile(null);
      setTake(null);
      clearFileInput();
      props.onEnrolled();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="card stack">
      <div class="field">
        <label for="speaker-name">{t("speakers.name")}</label>
        <input
          id="speaker-name"
          value={name}
          maxLength={64}
          required
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
        />
      </div>
      <div class="field">
        <label for="speaker-file">{t("speakers.file")}</label>
        <input
          id="speaker-file"
          ref={fileInput}
          type="file"
          accept="audio/*,video/*"
          required={take === null}
          onChange={(event) => {
            setFile((event.target as HTMLInputElement).files?.[0] ?? null);
            setTake(null);
          }}
        />
      </div>
      <p class="muted small">{t("speakers.orRecord")}</p>
      <VoiceRecorder
        onRecorded={(recording, seconds) => {
          setFile(recording);
          setTake({ seconds, url: URL.createObjectURL(recording) });
          // the take replaces a file chosen before it
          clearFileInput();
        }}
      />
      {take && (
        <div class="stack">
          <p class="note" role="status">
            {t("speakers.recorded", { time: formatClock(take.seconds) })}
          </p>
          {/* biome-ignore lint/a11y/useMediaCaption: a take of one's own voice, to hear before enrolling it */}
          <audio controls src={take.url} aria-label={t("speakers.playTake")} />
        </div>
      )}
      <div>
        <button type="submit" class="button" disabled={busy || !file || name.trim() === ""}>
          {busy ? t("speakers.enrolling") : t("speakers.enrol")}
        </button>
      </div>
      <ErrorNote error={error} />
      {done && (
        <p class="note" role="status">
          {t("speakers.enrolled", { name: done })}
        </p>
      )}
    </form>
  );
}
