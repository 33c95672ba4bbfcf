import { t } from "../../i18n/i18n.ts";

/** The mind map's picture (an <img>: an SVG shown this way runs no script). */
export function ImagePreview(props: { image: string; title: string }) {
  return (
    <img
      class="result-image"
      src={props.image}
      alt={t("studioKinds.preview.mindmapAlt", { title: props.title })}
      loading="lazy"
    />
  );
}
