import { useState } from "preact/hooks";
import { translationApi } from "../api/client.ts";
import type { HostControl } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { languageName } from "../ui/language-name.ts";
import type { Participant, RoomView } from "./room-view.ts";

/** How the host panel names a participant: its display name, "No name", and "(you)" for the host itself. */
function who(participant: Participant, me: string | null): string {
  const name = participant.name ?? t("host.noName");
  return participant.client_id === me ? `${name} (${t("host.you")})` : name;
}

/**
 * The host's controls of a room, for the browser holding its host token (hostTokens): who is in it
 * with their role and language, and lock/unlock, remove, make a listener, give the floor (to the others:
 * the host changes its own role by joining again), end. Each
 * is one POST /api/v1/session/{id}/control; what changed comes back to everyone, this page included,
 * as the room's messages (system, participants, user_left), which the view is drawn from.
 */
export function HostPanel(props: { conversationId: string; hostToken: string; view: RoomView }) {
  const { conversationId, hostToken, view } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirmEnd, setConfirmEnd] = useState(false);

  const act = async (action: HostControl) => {
    setBusy(true);
    setError(null);
    try {
      await translationApi.control(conversationId, hostToken, action);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card stack host-panel" aria-labelledby="host-title">
      <h2 id="host-title">{t("host.title")}</h2>
      <div class="row wrap">
        <button
          type="button"
          class="button button-secondary"
          disabled={busy}
          onClick={() => act({ action: view.locked ? "unlock" : "lock" })}
        >
          {view.locked ? t("host.unlock") : t("host.lock")}
        </button>
        {view.locked && <span class="host-locked">{t("host.lockedNote")}</span>}
      </div>
      <h3>{t("host.participants")}</h3>
      <ul class="host-participants">
        {view.participants.map((participant) => {
          const name = who(participant, view.me);
          const isMe = participant.client_id === view.me;
          const client_id = participant.client_id;
          return (
            <li key={client_id} class="host-participant">
              <span class="host-name">{name}</span>
              <span class="muted small">
                {participant.role === "speaker" ? t("host.speaker") : t("host.listener")} ·{" "}
                {languageName(participant.language)}
              </span>
              {!isMe && (
                <span class="row wrap host-actions">
                  {participant.role === "speaker" ? (
                    <button
                      type="button"
                      class="button button-ghost"
                      disabled={busy}
                      onClick={() => act({ action: "stop_speaker", client_id })}
                    >
                      {t("host.stop", { name })}
                    </button>
                  ) : (
                    <button
                      type="button"
                      class="button button-ghost"
                      disabled={busy}
                      onClick={() => act({ action: "grant_floor", client_id })}
                    >
                      {t("host.grant", { name })}
                    </button>
                  )}
                  <button
                    type="button"
                    class="button button-ghost"
                    disabled={busy}
                    onClick={() => act({ action: "remove", client_id })}
                  >
                    {t("host.remove", { name })}
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {confirmEnd ? (
        <div class="stack host-end" role="alert">
          <p>{t("host.endSure")}</p>
          <div class="row wrap">
            <button
              type="button"
              class="button button-danger"
              disabled={busy}
              onClick={() => act({ action: "end" })}
            >
              {t("host.endConfirm")}
            </button>
            <button type="button" class="button button-ghost" onClick={() => setConfirmEnd(false)}>
              {t("host.cancel")}
            </button>
          </div>
        </div>
      ) : (
        <div>
          <button type="button" class="button button-danger" onClick={() => setConfirmEnd(true)}>
            {t("host.end")}
          </button>
        </div>
      )}
      <ErrorNote error={error} />
    </section>
  );
}
