import { useState } from "preact/hooks";
import { t } from "../i18n/i18n.ts";
import { formatBytes } from "../ui/format.ts";

/**
 * Where a file is chosen: dropped on the zone, or picked with the (keyboard-reachable) file input the
 * zone labels.
 */
export function FileDrop(props: { file: File | null; onFile: (file: File) => void; disabled: boolean }) {
  const [over, setOver] = useState(false);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    const file = event.dataTransfer?.files[0];
    if (file && !props.disabled) props.onFile(file);
  };
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is a mouse gesture; the file input inside is the keyboard way
    <div
      class={`drop-zone${over ? " drop-over" : ""}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <input
        id="file-input"
        class="visually-hidden-input"
        type="file"
        accept="audio/*,video/*"
        disabled={props.disabled}
        onChange={(event) => {
          const file = (event.target as HTMLInputElement).files?.[0];
          if (file) props.onFile(file);
        }}
      />
      <label for="file-input" class="drop-label">
        <span class="drop-title">{t("upload.drop")}</span>
        <span class="muted">{t("upload.or")}</span>
        <span class="button button-secondary" aria-hidden="true">
          {t("upload.pick")}
        </span>
      </label>
      {props.file && (
        <p class="picked" aria-live="polite">
          {t("upload.picked", { name: props.file.name, size: formatBytes(props.file.size) })}
        </p>
      )}
    </div>
  );
}
