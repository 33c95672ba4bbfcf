import { t } from "../i18n/i18n.ts";
import { CopyField } from "../ui/copy-field.tsx";
import { QrCode } from "../ui/qr-code.tsx";

/** How someone else gets into a room: a large QR code of its join link, and the link to copy. */
export function RoomInvite({ joinUrl, id = "join-link" }: { joinUrl: string; id?: string }) {
  return (
    <div class="room-invite">
      <QrCode text={joinUrl} label={t("room.qrLabel")} />
      <p class="muted small">{t("room.qrHint")}</p>
      <CopyField id={id} label={t("room.joinLink")} value={joinUrl} />
    </div>
  );
}
