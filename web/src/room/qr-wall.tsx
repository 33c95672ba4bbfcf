import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../i18n/i18n.ts";
import { QrCode } from "../ui/qr-code.tsx";

/**
 * The join link's QR code for the wall: a button that fills the screen (the Fullscreen API where the
 * browser allows it, else the whole window) with the code as large as it fits, and the link under it.
 * Escape or the close button goes back.
 */
export function QrWall({ joinUrl }: { joinUrl: string }) {
  const [open, setOpen] = useState(false);
  const wall = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    closeButton.current?.focus();
    // Not every browser lets a page go full screen (iOS Safari); the overlay fills the window anyway.
    wall.current?.requestFullscreen?.().catch(() => {});
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setOpen(false);
    const onFullscreen = () => !document.fullscreenElement && setOpen(false);
    document.addEventListener("keydown", onKey);
    document.addEventListener("fullscreenchange", onFullscreen);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("fullscreenchange", onFullscreen);
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
    };
  }, [open]);

  return (
    <>
      <button type="button" class="button button-secondary" onClick={() => setOpen(true)}>
        {t("host.qrFull")}
      </button>
      {open && (
        <div ref={wall} class="qr-wall" role="dialog" aria-modal="true" aria-labelledby="qr-wall-title">
          <h2 id="qr-wall-title">{t("host.qrTitle")}</h2>
          <QrCode text={joinUrl} label={t("room.qrLabel")} />
          <p class="qr-wall-link">{joinUrl}</p>
          <button ref={closeButton} type="button" class="button" onClick={() => setOpen(false)}>
            {t("host.qrClose")}
          </button>
        </div>
      )}
    </>
  );
}
