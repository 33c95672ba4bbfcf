import { useState } from "preact/hooks";
import { consolePath } from "../../../protocol/console-routes.ts";
import { translationApi } from "../api/client.ts";
import { t } from "../i18n/i18n.ts";
import { hostTokens } from "../room/host-token.ts";
import { roomStorage } from "../room/room-storage.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageNameInText } from "../ui/language-name.ts";
import type { LanguagePair } from "./pair.ts";
import { RoomInvite } from "./room-invite.tsx";
import { RoomTranscript } from "./room-transcript.tsx";

/** The room this tab created last (kept so a reload still shows its code). */
interface CreatedRoom {
  id: string;
  joinUrl: string;
  language: string;
  target: string;
}

const STORAGE_KEY = "voxedge.translate.room";

function readCreatedRoom(): CreatedRoom | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null") as CreatedRoom | null;
    return typeof saved?.id === "string" && typeof saved.joinUrl === "string" ? saved : null;
  } catch {
    return null;
  }
}

/**
 * Rooms: POST /api/v1/session/create with this page's pair (you speak the first language, they the
 * second), then the join link as a QR code for the other person's phone, and the way into the room.
 */
export function RoomCreator({ pair }: { pair: LanguagePair }) {
  const [room, setRoom] = useState<CreatedRoom | null>(readCreatedRoom);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const created = await translationApi.createSession(pair.source, pair.target);
      const next = {
        id: created.conversation_id,
        joinUrl: created.join_url,
        language: pair.source,
        target: pair.target,
      };
      // The creator enters the room speaking the first language of the pair, as its host.
      roomStorage.setLanguage(next.id, pair.source);
      hostTokens.set(next.id, created.host_token);
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
      setRoom(next);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card stack" aria-labelledby="rooms-title">
      <h2 id="rooms-title">{t("rooms.title")}</h2>
      <p class="muted">
        {t("rooms.intro", { mine: languageNameInText(pair.source), theirs: languageNameInText(pair.target) })}
      </p>
      <div>
        <button type="button" class="button" onClick={create} disabled={busy}>
          {busy ? t("rooms.creating") : room ? t("rooms.createAnother") : t("rooms.create")}
        </button>
      </div>
      <ErrorNote error={error} />
      {room && (
        <div class="stack room-created" aria-live="polite">
          <h3>
            {t("rooms.ready", {
              mine: languageNameInText(room.language),
              theirs: languageNameInText(room.target),
            })}
          </h3>
          <RoomInvite joinUrl={room.joinUrl} />
          <div>
            <a class="button" href={consolePath("room", { id: room.id })}>
              {t("rooms.enter")}
            </a>
          </div>
          <RoomTranscript id={room.id} languages={[room.target, room.language]} />
        </div>
      )}
    </section>
  );
}
