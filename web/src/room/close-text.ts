import { t } from "../i18n/i18n.ts";
import { ROOM_CLOSE } from "./room-connection.ts";

/**
 * Why the room closed this participant's connection, for people (the 4xxx codes of docs/api.md; 1006
 * stands for a drop that outlived the 30 s the room keeps a place).
 *
 * @example roomCloseText(4429, "") // "The conversation is full."
 */
export function roomCloseText(code: number, reason: string): string {
  switch (code) {
    case ROOM_CLOSE.badRequest:
      return t("room.closed.badRequest");
    case ROOM_CLOSE.replaced:
      return t("room.closed.replaced");
    case ROOM_CLOSE.full:
      return t("room.closed.full");
    case ROOM_CLOSE.removed:
      return t("room.closed.removed");
    case ROOM_CLOSE.locked:
      return t("room.closed.locked");
    case ROOM_CLOSE.tooBig:
      return t("room.closed.tooBig");
    case 1006:
      return t("room.closed.lost");
    default:
      return t("room.closed.other", { code, reason: reason || "-" });
  }
}
