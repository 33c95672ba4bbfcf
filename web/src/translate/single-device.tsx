import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { authApi } from "../api/client.ts";
import { closeNotice } from "../audio/close-notice.ts";
import { LevelMeter } from "../audio/level-meter.tsx";
import { MicButton } from "../audio/mic-button.tsx";
import { useMicrophone } from "../audio/use-microphone.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import type { LanguagePair } from "./pair.ts";
import { type SingleEvent, SingleSocket } from "./single-socket.ts";
import {
  finalsOnly,
  fromSingle,
  loadTimeline,
  placeUtterance,
  saveTimeline,
  type TimelineItem,
} from "./timeline.ts";
import { UtteranceLines } from "./utterance-lines.tsx";

type Phase = "idle" | "starting" | "live" | "ending";
/** The finals of this tab's single-device translation, kept across a reload. */
const LINES_KEY = "voxedge.translate.lines";

/**
 * Single-device translation (/api/v1/ws/single): the microphone in, each utterance out in both
 * languages. The config goes with the connection and again whenever `pair` changes mid-session.
 */
export function SingleDevice({ pair, picker }: { pair: LanguagePair; picker: ComponentChildren }) {
  const [phase, setPhase] = useState<Phase>("idle");
  const [items, setItems] = useState<TimelineItem[]>(() => loadTimeline(LINES_KEY));
  const [notice, setNotice] = useState<string | null>(null);
  const socket = useRef<SingleSocket | null>(null);
  const mic = useMicrophone((pcm) => socket.current?.send(pcm));

  useEffect(() => saveTimeline(LINES_KEY, items), [items]);
  useEffect(() => socket.current?.configure(pair), [pair]);
  useEffect(() => () => socket.current?.close(), []);

  const onEvent = (event: SingleEvent) => {
    switch (event.type) {
      case "ready":
        setPhase("live");
        break;
      case "transcript":
        setItems((previous) => placeUtterance(previous, fromSingle(event)));
        break;
      case "error":
        setNotice(event.message);
        break;
      case "closed":
        socket.current = null;
        mic.stop();
        setPhase("idle");
        setItems(finalsOnly);
        setNotice(closeNotice(event.code, event.reason, event.wasReady));
        break;
    }
  };

  const start = async () => {
    if (!apiKey.value) return;
    setNotice(null);
    setPhase("starting");
    if (!(await mic.start())) return setPhase("idle");
    let token: string;
    try {
      ({ token } = await authApi.socketToken("translate"));
    } catch (caught) {
      mic.stop();
      setNotice(caught instanceof Error ? caught.message : String(caught));
      return setPhase("idle");
    }
    socket.current = new SingleSocket(location.origin, token, pair, onEvent);
  };

  const stop = () => {
    mic.stop();
    if (!socket.current) return setPhase("idle");
    setPhase("ending");
    socket.current.end();
  };

  const utterances = items.filter((item) => item.kind === "utterance");
  return (
    <>
      <section class="card stack" aria-labelledby="single-title">
        <h2 id="single-title">{t("translate.singleTitle")}</h2>
        <p class="muted">{t("translate.singleIntro")}</p>
        {picker}
        <div class="mic-row">
          <MicButton
            state={phase === "idle" ? "off" : mic.state}
            startLabel={t("translate.start")}
            stopLabel={phase === "ending" ? t("live.ending") : t("translate.stop")}
            onStart={start}
            onStop={stop}
            disabled={phase === "ending"}
          />
          <p class="muted small" aria-live="polite">
            {phase === "starting" ? t("live.connecting") : phase === "live" ? t("live.listening") : ""}
          </p>
        </div>
        <LevelMeter id="translate-level" level={mic.level} active={phase === "live"} />
        {notice && (
          <p class="note note-warn" role="alert">
            {notice}
          </p>
        )}
        <ErrorNote error={mic.error} />
      </section>
      <section class="card" aria-labelledby="single-lines-title">
        <div class="row">
          <h2 id="single-lines-title">{t("translate.conversation")}</h2>
          {utterances.length > 0 && phase === "idle" && (
            <button type="button" class="button button-ghost" onClick={() => setItems([])}>
              {t("live.clear")}
            </button>
          )}
        </div>
        {utterances.length === 0 ? (
          <p class="muted">{t("translate.empty")}</p>
        ) : (
          <ol class="utterances" aria-live="polite">
            {utterances.map((utterance) => (
              <li key={utterance.id} class={`utterance ${utterance.final ? "final" : "interim"}`}>
                <UtteranceLines utterance={utterance} />
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
