import { useEffect, useRef, useState } from "preact/hooks";
import { api, authApi } from "../api/client.ts";
import type { FinalMessage, HealthResponse } from "../api/types.ts";
import { closeNotice } from "../audio/close-notice.ts";
import { LevelMeter } from "../audio/level-meter.tsx";
import { type Microphone, openMicrophone } from "../audio/microphone.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { formatClock } from "../ui/format.ts";
import { LanguageSelect } from "../ui/language-select.tsx";
import { type LiveEvent, LiveSocket } from "./live-socket.ts";

type Phase = "idle" | "starting" | "live" | "ending";
const HEALTH_EVERY_MS = 3_000;

/** /live — the microphone transcribed as you speak: interims in grey, replaced in place; finals appended. */
export default function LivePage() {
  const [language, setLanguage] = useState("auto");
  const [phase, setPhase] = useState<Phase>("idle");
  const [finals, setFinals] = useState<FinalMessage[]>([]);
  const [interim, setInterim] = useState("");
  const [level, setLevel] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [health, setHealth] = useState<HealthResponse | null>(null);
  const session = useRef<{ socket: LiveSocket | null; mic: Microphone | null }>({ socket: null, mic: null });

  const release = () => {
    const { socket, mic } = session.current;
    session.current = { socket: null, mic: null };
    socket?.close();
    void mic?.close();
    setLevel(0);
  };
  useEffect(() => release, []);

  // The gate's state while idle: another session holds it (busy), or no engine is connected.
  useEffect(() => {
    if (phase !== "idle") return;
    let alive = true;
    const check = () =>
      api.health().then(
        (next) => alive && setHealth(next),
        () => alive && setHealth(null),
      );
    void check();
    const timer = setInterval(check, HEALTH_EVERY_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [phase]);

  const onEvent = (event: LiveEvent) => {
    switch (event.type) {
      case "ready":
        setPhase("live");
        break;
      case "interim":
        setInterim(event.text);
        break;
      case "final":
        setInterim("");
        if (event.text.trim()) setFinals((previous) => [...previous, event]);
        break;
      case "error":
        setNotice(event.message);
        break;
      case "closed": {
        void session.current.mic?.close();
        session.current = { socket: null, mic: null };
        setLevel(0);
        setInterim("");
        setPhase("idle");
        setNotice(closeNotice(event.code, event.reason, event.wasReady));
        break;
      }
    }
  };

  const start = async () => {
    if (!apiKey.value) return;
    setError(null);
    setNotice(null);
    setPhase("starting");
    try {
      const socketHolder: { socket: LiveSocket | null } = { socket: null };
      const mic = await openMicrophone((pcm, chunkLevel) => {
        setLevel(chunkLevel);
        socketHolder.socket?.send(pcm);
      });
      const { token } = await authApi.socketToken("live");
      const socket = new LiveSocket(location.origin, token, language, onEvent);
      socketHolder.socket = socket;
      session.current = { socket, mic };
    } catch (caught) {
      release();
      setPhase("idle");
      setError(caught);
    }
  };

  const stop = () => {
    setPhase("ending");
    void session.current.mic?.close();
    setLevel(0);
    session.current.socket?.end();
  };

  const running = phase !== "idle";
  return (
    <>
      <h1>{t("live.title")}</h1>
      <div class="stack">
        <div class="card stack">
          <p class="muted">{t("live.intro")}</p>
          {health?.busy && phase === "idle" && (
            <p class="note note-warn" role="status">
              {t("live.busy")}
            </p>
          )}
          {health && !health.asr_loaded && phase === "idle" && (
            <p class="note note-warn" role="status">
              {t("live.noEngine")}
            </p>
          )}
          <div class="row wrap live-controls">
            <LanguageSelect id="live-language" value={language} onChange={setLanguage} />
            {running ? (
              <button type="button" class="button button-danger" onClick={stop} disabled={phase === "ending"}>
                {phase === "ending" ? t("live.ending") : t("live.stop")}
              </button>
            ) : (
              <button type="button" class="button" onClick={start}>
                {t("live.start")}
              </button>
            )}
          </div>
          <LevelMeter level={level} active={phase === "live" || phase === "starting"} />
          <p class="muted small" aria-live="polite">
            {phase === "starting" ? t("live.connecting") : phase === "live" ? t("live.listening") : ""}
          </p>
          {notice && (
            <p class="note note-warn" role="alert">
              {notice}
            </p>
          )}
          <ErrorNote error={error} />
        </div>
        <section aria-labelledby="live-transcript-title" class="card">
          <div class="row">
            <h2 id="live-transcript-title">{t("live.transcript")}</h2>
            {finals.length > 0 && !running && (
              <button type="button" class="button button-ghost" onClick={() => setFinals([])}>
                {t("live.clear")}
              </button>
            )}
          </div>
          <div class="live-transcript" aria-live="polite">
            {finals.length === 0 && !interim && <p class="muted">{t("live.empty")}</p>}
            {finals.map((final) => (
              <p key={`${final.start}-${final.end}`} class="final">
                <span class="muted small">{formatClock(final.start)}</span> {final.text}
              </p>
            ))}
            {interim && <p class="interim">{interim}</p>}
          </div>
        </section>
      </div>
    </>
  );
}
