import type { UploadProgress } from "../api/upload.ts";
import { t } from "../i18n/i18n.ts";
import { formatBytes } from "../ui/format.ts";

/** The upload's real progress: a bar, bytes sent of the total, and the current speed. */
export function UploadBar({ progress, onCancel }: { progress: UploadProgress; onCancel: () => void }) {
  const percent = progress.total > 0 ? Math.round((progress.loaded / progress.total) * 100) : 0;
  return (
    <div class="upload-bar">
      <progress max={100} value={percent} aria-label={t("upload.progressLabel")} />
      <p class="muted" aria-live="polite">
        {t("upload.sent", { sent: formatBytes(progress.loaded), total: formatBytes(progress.total) })}
        {progress.bytesPerSec !== null &&
          ` · ${t("upload.speed", { speed: formatBytes(progress.bytesPerSec) })}`}
        {` · ${percent}%`}
      </p>
      <button type="button" class="button button-secondary" onClick={onCancel}>
        {t("upload.cancel")}
      </button>
    </div>
  );
}
