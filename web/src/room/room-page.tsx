import { useEffect, useState } from "preact/hooks";
import "../styles/translate.css";
import "../styles/room.css";
import { useRoute } from "preact-iso";
import { VoxedgeApiError } from "../../../client/errors.ts";
import { translationApi } from "../api/client.ts";
import type { LanguagesResponse, SessionDetails } from "../api/types.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";
import { RoomTranscript } from "../translate/room-transcript.tsx";
import { loadTimeline, saveTimeline } from "../translate/timeline.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { hostTokens } from "./host-token.ts";
import { ROOM_CLOSE, type RoomState } from "./room-connection.ts";
import { RoomEnded } from "./room-ended.tsx";
import { RoomLive } from "./room-live.tsx";
import { type JoinChoice, RoomLobby } from "./room-lobby.tsx";
import { defaultRoomLanguage, roomStorage } from "./room-storage.ts";
import { EMPTY_ROOM, type RoomView, roomLanguages } from "./room-view.ts";

type Loaded =
  | { kind: "loading" }
  | {
      kind: "ended";
      why: "gone" | "expired" | "host";
      /** The room's languages, when this browser hosted it: its transcript stays downloadable. */
      hosted?: string[];
    }
  | { kind: "error"; error: unknown }
  | { kind: "ready"; session: SessionDetails; languages: LanguagesResponse | null };

/**
 * /join/{conversation_id} — a translation room, for whoever holds its link (no API key: the id is the
 * capability). What a second person opens from the QR code on a phone: pick a language, join, tap the
 * microphone, and read the conversation as chat bubbles in both languages; or join as a listener and read
 * (or hear) it in large type. The initiator comes here too, as the room's host.
 */
export default function RoomPage() {
  const { params } = useRoute();
  const id = params.id ?? "";
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);
  /** How this tab joins (or last joined): language, name, role. */
  const [choice, setChoice] = useState<JoinChoice | null>(null);
  /** In the room (connected, or reconnecting after a drop). */
  const [joined, setJoined] = useState(false);
  /** Why the last connection ended, when the room ended it (4xxx, a drop past 30 s). */
  const [lastClose, setLastClose] = useState<Extract<RoomState, { kind: "closed" }> | null>(null);
  const [view, setView] = useState<RoomView>(() => ({
    ...EMPTY_ROOM,
    items: loadTimeline(roomStorage.timelineKey(id)),
  }));

  useEffect(() => saveTimeline(roomStorage.timelineKey(id), view.items), [id, view.items]);

  useEffect(() => {
    const abort = new AbortController();
    setLoaded({ kind: "loading" });
    Promise.all([
      translationApi.session(id, abort.signal),
      // The language list is a nicety (more languages to pick from): the room works without it.
      translationApi.languages(abort.signal).catch(() => null),
    ]).then(
      ([session, languages]) => {
        const supported = languages?.supported_languages.map(([code]) => code) ?? [
          session.user_a_lang,
          session.user_a_translate,
        ];
        setChoice({
          language: defaultRoomLanguage({
            remembered: roomStorage.language(id),
            browser: navigator.languages?.length ? navigator.languages : [navigator.language],
            supported,
            sessionTarget: session.user_a_translate,
          }),
          name: roomStorage.name(id),
          role: roomStorage.role(id),
        });
        setLoaded({ kind: "ready", session, languages });
        // A reload while in the room goes straight back in, into the same place.
        if (roomStorage.wasJoined(id)) setJoined(true);
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        setLoaded(
          error instanceof VoxedgeApiError && error.status === 404
            ? { kind: "ended", why: "gone" }
            : { kind: "error", error },
        );
      },
    );
    return () => abort.abort();
  }, [id, attempt]);

  const join = (chosen: JoinChoice) => {
    roomStorage.setLanguage(id, chosen.language);
    roomStorage.setName(id, chosen.name);
    roomStorage.setRole(id, chosen.role);
    roomStorage.setJoined(id, true);
    setChoice(chosen);
    setLastClose(null);
    setJoined(true);
  };

  const onEnd = (close: Extract<RoomState, { kind: "closed" }> | null) => {
    roomStorage.setJoined(id, false);
    roomStorage.setResumeToken(id, null); // the place is gone: a new join is a new participant
    setJoined(false);
    const gone: number[] = [
      ROOM_CLOSE.notFound,
      ROOM_CLOSE.expired,
      ROOM_CLOSE.maxAge,
      ROOM_CLOSE.endedByHost,
    ];
    if (close && gone.includes(close.code)) {
      const hosted =
        hostTokens.get(id) !== null && loaded.kind === "ready"
          ? roomLanguages(loaded.session, view.participants)
          : undefined;
      // the room is over: its host token has nothing left to control
      hostTokens.forget(id);
      setLoaded({
        hosted,
        kind: "ended",
        why:
          close.code === ROOM_CLOSE.endedByHost
            ? "host"
            : close.code === ROOM_CLOSE.expired
              ? "expired"
              : "gone",
      });
    }
    setLastClose(close);
  };

  if (loaded.kind === "ended") {
    return (
      <>
        <RoomEnded why={loaded.why} />
        {loaded.hosted && apiKey.value && (
          <section class="card">
            <RoomTranscript id={id} languages={loaded.hosted} />
          </section>
        )}
      </>
    );
  }
  if (loaded.kind === "loading") {
    return (
      <>
        <h1>{t("room.title")}</h1>
        <p class="muted">{t("history.loading")}</p>
      </>
    );
  }
  if (loaded.kind === "error") {
    return (
      <>
        <h1>{t("room.title")}</h1>
        <ErrorNote
          error={loaded.error}
          action={
            <button type="button" class="button" onClick={() => setAttempt((n) => n + 1)}>
              {t("translate.retry")}
            </button>
          }
        />
      </>
    );
  }
  if (joined && choice) {
    return (
      <RoomLive
        conversationId={id}
        session={loaded.session}
        languages={loaded.languages}
        join={choice}
        view={view}
        setView={setView}
        onEnd={onEnd}
      />
    );
  }
  return (
    <RoomLobby
      session={loaded.session}
      languages={loaded.languages}
      initial={choice ?? { language: loaded.session.user_a_translate, name: "", role: "speaker" }}
      lastClose={lastClose}
      hasHistory={view.items.length > 0}
      onJoin={join}
    />
  );
}
