import { t } from "../../i18n/i18n.ts";

/**
 * A video result's player. Its WebVTT file, when the task made one, is the player's captions track
 * (off until chosen: a short burns its narration into the picture already).
 */
export function VideoPreview(props: { video: string; captions: string | null; language: string | null }) {
  return (
    // biome-ignore lint/a11y/useMediaCaption: the track is there when the task made a WebVTT file (a short's words are also burnt into its picture)
    <video class="result-video" controls preload="metadata" playsInline src={props.video}>
      {props.captions && (
        <track
          kind="captions"
          src={props.captions}
          srclang={props.language ?? undefined}
          label={t("studioKinds.preview.captions")}
        />
      )}
    </video>
  );
}
