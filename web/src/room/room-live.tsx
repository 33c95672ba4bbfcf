import { useEffect, useRef, useState } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import type { LanguagesResponse, SessionDetails } from "../api/types.ts";
import { LevelMeter } from "../audio/level-meter.tsx";
import { MicButton } from "../audio/mic-button.tsx";
import { useMicrophone } from "../audio/use-microphone.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";
import { RoomInvite } from "../translate/room-invite.tsx";
import { RoomTranscript } from "../translate/room-transcript.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageNameInText } from "../ui/language-name.ts";
import { Bubbles } from "./bubbles.tsx";
import { HostPanel } from "./host-panel.tsx";
import { hostTokens } from "./host-token.ts";
import { ListenerView } from "./listener-view.tsx";
import { QrWall } from "./qr-wall.tsx";
import { RoomConnection, type RoomState } from "./room-connection.ts";
import { type JoinChoice, roomLanguageOptions } from "./room-lobby.tsx";
import { roomStorage } from "./room-storage.ts";
import { applyRoomMessage, type RoomView, roomLanguages } from "./room-view.ts";
import { mediaElementPlayer, SpeechQueue, unlockMediaElement } from "./speech-queue.ts";
import type { TranslationAudio } from "./translation-audio.ts";

/**
 * In a room. A speaker sees the conversation as bubbles and the microphone; a listener (ListenerView)
 * the latest translation in large type, its language and Read aloud. The room's host (this browser
 * holds its host token) also gets the host panel, the QR code for the wall and the transcript.
 * A drop reconnects into the same place (RoomConnection); a close the room chose ends the view
 * (`onEnd` with why), and so does Leave (`onEnd(null)`).
 */
export function RoomLive(props: {
  conversationId: string;
  session: SessionDetails;
  languages: LanguagesResponse | null;
  join: JoinChoice;
  view: RoomView;
  setView: (update: (view: RoomView) => RoomView) => void;
  onEnd: (close: Extract<RoomState, { kind: "closed" }> | null) => void;
}) {
  const { conversationId, session, join, view, setView, onEnd } = props;
  const [state, setState] = useState<RoomState>({ kind: "connecting" });
  const [language, setLanguage] = useState(join.language);
  const [readAloud, setReadAloud] = useState(() => roomStorage.readAloud(conversationId));
  const [reading, setReading] = useState<TranslationAudio | null>(null);
  const [hostToken] = useState(() => hostTokens.get(conversationId));
  const connection = useRef<RoomConnection | null>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const queue = useRef<SpeechQueue | null>(null);
  const mic = useMicrophone((pcm) => connection.current?.send(pcm));
  // The latest callbacks and choices, for the connection made once below.
  const latest = useRef({ mic, onEnd, setView, readAloud });
  latest.current = { mic, onEnd, setView, readAloud };

  useEffect(() => {
    if (audio.current) queue.current = new SpeechQueue(mediaElementPlayer(audio.current), setReading);
    /** This participant's client_id, as the room's welcome says (its own join is worded "you joined"). */
    let me = "";
    const room = new RoomConnection({
      origin: location.origin,
      conversationId,
      language: join.language,
      name: join.name || null,
      role: join.role,
      speak: latest.current.readAloud,
      resumeToken: roomStorage.resumeToken(conversationId),
      onResumeToken: (token) => roomStorage.setResumeToken(conversationId, token),
      onMessage: (message) => {
        if (message.type === "welcome") {
          me = message.client_id;
          queue.current?.restartOrder();
        }
        if (message.type === "translation_audio") {
          if (latest.current.readAloud) queue.current?.push(message);
          return;
        }
        latest.current.setView((current) => applyRoomMessage(current, message, me));
      },
      onState: (next) => {
        setState(next);
        if (next.kind !== "closed") return;
        latest.current.mic.stop();
        queue.current?.clear();
        latest.current.onEnd(next);
      },
    });
    connection.current = room;
    // Leaving the page (not a reload: that drops the socket, and the room keeps the place) is leaving.
    return () => {
      room.leave();
      queue.current?.clear();
      connection.current = null;
    };
  }, [conversationId, join]);

  const role = view.role ?? join.role;
  // The host made this participant a listener: its audio would only be refused.
  useEffect(() => {
    if (role === "listener") latest.current.mic.stop();
  }, [role]);

  const stopSpeaking = () => {
    mic.stop();
    connection.current?.endUtterance();
  };
  const leave = () => {
    mic.stop();
    queue.current?.clear();
    connection.current?.leave();
    onEnd(null);
  };
  const switchLanguage = (next: string) => {
    roomStorage.setLanguage(conversationId, next);
    setLanguage(next);
    queue.current?.clear();
    connection.current?.switchLanguage(next);
  };
  const toggleReadAloud = (on: boolean) => {
    // In the tap itself: a phone plays sound only from an element first started by a gesture.
    if (on && audio.current) unlockMediaElement(audio.current);
    if (!on) queue.current?.clear();
    roomStorage.setReadAloud(conversationId, on);
    setReadAloud(on);
    connection.current?.setSpeak(on);
  };

  const joinUrl = `${location.origin}${consolePath("room", { id: conversationId })}`;
  const status =
    state.kind === "connected"
      ? t("room.connected", { count: view.count ?? 1 })
      : state.kind === "reconnecting"
        ? t("room.reconnecting")
        : t("live.connecting");
  return (
    <div class={`room room-${role}`}>
      <header class="room-head">
        <h1>{t("room.title")}</h1>
        <p class={`room-status room-status-${state.kind}`} role="status">
          {status}
        </p>
        <p class="muted small">
          {role === "listener"
            ? t("room.youListen", { language: languageNameInText(language) })
            : t("room.youSpeak", { language: languageNameInText(language) })}
          {role === "speaker" &&
            view.partner &&
            ` ${t("room.partner", { language: languageNameInText(view.partner) })}`}
        </p>
      </header>
      {/* biome-ignore lint/a11y/useMediaCaption: spoken translations whose text is on screen */}
      <audio ref={audio} />
      {role === "listener" ? (
        <>
          <ListenerView
            items={view.items}
            language={language}
            languages={roomLanguageOptions(session, props.languages, language)}
            onLanguage={switchLanguage}
            readAloud={readAloud}
            onReadAloud={toggleReadAloud}
            reading={reading}
          />
          <h2 class="listener-earlier">{t("room.earlier")}</h2>
          <Bubbles items={view.items} />
          <div class="room-controls">
            <button type="button" class="button button-ghost" onClick={leave}>
              {t("room.leave")}
            </button>
          </div>
        </>
      ) : (
        <>
          <Bubbles items={view.items} />
          <div class="room-controls">
            <MicButton
              state={mic.state}
              startLabel={t("room.speak")}
              stopLabel={t("room.stopSpeaking")}
              onStart={() => void mic.start()}
              onStop={stopSpeaking}
              disabled={state.kind !== "connected" && mic.state === "off"}
            />
            <LevelMeter id="room-level" level={mic.level} active={mic.state === "on"} />
            <button type="button" class="button button-ghost" onClick={leave}>
              {t("room.leave")}
            </button>
          </div>
          <ErrorNote error={mic.error} />
        </>
      )}
      {hostToken && <HostPanel conversationId={conversationId} hostToken={hostToken} view={view} />}
      <details class="card room-invite-box">
        <summary>{t("room.invite")}</summary>
        <RoomInvite id="room-join-link" joinUrl={joinUrl} />
        {hostToken && <QrWall joinUrl={joinUrl} />}
      </details>
      {hostToken && apiKey.value && (
        <section class="card">
          <RoomTranscript id={conversationId} languages={roomLanguages(session, view.participants)} />
        </section>
      )}
    </div>
  );
}
