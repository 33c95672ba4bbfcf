import { consolePath } from "../../../protocol/console-routes.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";

/** The page for a room that is gone: never created, expired, or a mistyped link. */
export function RoomEnded({ expired }: { expired: boolean }) {
  return (
    <section class="card stack room-ended" aria-labelledby="room-ended-title">
      <h1 id="room-ended-title">{t("room.endedTitle")}</h1>
      <p>{expired ? t("room.expiredText") : t("room.endedText")}</p>
      {apiKey.value && (
        <p>
          <a class="button" href={consolePath("translate")}>
            {t("room.startNew")}
          </a>
        </p>
      )}
    </section>
  );
}
