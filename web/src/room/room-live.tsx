import { useEffect, useRef, useState } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import { LevelMeter } from "../audio/level-meter.tsx";
import { MicButton } from "../audio/mic-button.tsx";
import { useMicrophone } from "../audio/use-microphone.ts";
import { t } from "../i18n/i18n.ts";
import { RoomInvite } from "../translate/room-invite.tsx";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageName } from "../ui/language-name.ts";
import { Bubbles } from "./bubbles.tsx";
import { RoomConnection, type RoomState } from "./room-connection.ts";
import { roomStorage } from "./room-storage.ts";
import { applyRoomMessage, type RoomView } from "./room-view.ts";

/**
 * In a room: the conversation as bubbles, who is here and into what your words go, the microphone.
 * A drop reconnects into the same place (RoomConnection); a close the room chose ends the view
 * (`onEnd` with why), and so does Leave (`onEnd(null)`).
 */
export function RoomLive(props: {
  conversationId: string;
  language: string;
  view: RoomView;
  setView: (update: (view: RoomView) => RoomView) => void;
  onEnd: (close: Extract<RoomState, { kind: "closed" }> | null) => void;
}) {
  const { conversationId, language, view, setView, onEnd } = props;
  const [state, setState] = useState<RoomState>({ kind: "connecting" });
  const connection = useRef<RoomConnection | null>(null);
  const mic = useMicrophone((pcm) => connection.current?.send(pcm));
  // The latest callbacks, for the connection made once below.
  const latest = useRef({ mic, onEnd, setView });
  latest.current = { mic, onEnd, setView };

  useEffect(() => {
    /** This participant's client_id, as the room's welcome says (its own join is worded "you joined"). */
    let me = "";
    const room = new RoomConnection({
      origin: location.origin,
      conversationId,
      language,
      resumeToken: roomStorage.resumeToken(conversationId),
      onResumeToken: (token) => roomStorage.setResumeToken(conversationId, token),
      onMessage: (message) => {
        if (message.type === "welcome") me = message.client_id;
        latest.current.setView((current) => applyRoomMessage(current, message, me));
      },
      onState: (next) => {
        setState(next);
        if (next.kind !== "closed") return;
        latest.current.mic.stop();
        latest.current.onEnd(next);
      },
    });
    connection.current = room;
    // Leaving the page (not a reload: that drops the socket, and the room keeps the place) is leaving.
    return () => {
      room.leave();
      connection.current = null;
    };
  }, [conversationId, language]);

  const stopSpeaking = () => {
    mic.stop();
    connection.current?.endUtterance();
  };
  const leave = () => {
    mic.stop();
    connection.current?.leave();
    onEnd(null);
  };

  const status =
    state.kind === "connected"
      ? t("room.connected", { count: view.count ?? 1 })
      : state.kind === "reconnecting"
        ? t("room.reconnecting")
        : t("live.connecting");
  return (
    <div class="room">
      <header class="room-head">
        <h1>{t("room.title")}</h1>
        <p class={`room-status room-status-${state.kind}`} role="status">
          {status}
        </p>
        <p class="muted small">
          {t("room.youSpeak", { language: languageName(language) })}
          {view.partner && ` ${t("room.partner", { language: languageName(view.partner) })}`}
        </p>
      </header>
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
      <details class="card room-invite-box">
        <summary>{t("room.invite")}</summary>
        <RoomInvite
          id="room-join-link"
          joinUrl={`${location.origin}${consolePath("room", { id: conversationId })}`}
        />
      </details>
    </div>
  );
}
