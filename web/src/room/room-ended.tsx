import { consolePath } from "../../../protocol/console-routes.ts";
import { apiKey } from "../auth/key-store.ts";
import { t } from "../i18n/i18n.ts";

/** The page for a room that is gone: never created, expired, ended by its host, or a mistyped link. */
export function RoomEnded({ why }: { why: "gone" | "expired" | "host" }) {
  return (
    <section class="card stack room-ended" aria-labelledby="room-ended-title">
      <h1 id="room-ended-title">{t("room.endedTitle")}</h1>
      <p>
        {why === "expired"
          ? t("room.expiredText")
          : why === "host"
            ? t("room.endedByHost")
            : t("room.endedText")}
      </p>
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
