import { t } from "../i18n/i18n.ts";

/** Close codes of /ws and /api/v1/ws/single (docs/api.md, protocol/live.ts LiveClose). */
export const CLOSE = {
  normal: 1000,
  idle: 1001,
  abnormal: 1006,
  tooBig: 1009,
  engineLost: 1011,
  busy: 1013,
  maxDuration: 4410,
} as const;

/**
 * Why a /ws or single-device session closed, for people; null for an ordinary end.
 *
 * @example closeNotice(1001, "", true) // "The session ended: no audio reached the server for a while."
 */
export function closeNotice(code: number, reason: string, wasReady: boolean): string | null {
  if (code === CLOSE.busy) return t("live.refused", { reason: reason || t("live.busyDefault") });
  if (code === CLOSE.idle) return t("live.idle");
  if (code === CLOSE.engineLost) return t("live.engineLost", { reason });
  if (code === CLOSE.tooBig) return t("live.tooBig");
  if (code === CLOSE.maxDuration) return t("live.maxDuration");
  if (code === CLOSE.normal) return null;
  return wasReady ? t("live.dropped") : t("live.cannotConnect");
}
