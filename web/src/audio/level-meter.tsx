import { t } from "../i18n/i18n.ts";

/** The microphone's input level, 0..1, as a labelled meter (the bar moves while you speak). */
export function LevelMeter({
  level,
  active,
  id = "input-level",
}: {
  level: number;
  active: boolean;
  id?: string;
}) {
  return (
    <div class="field">
      <label for={id}>{t("audio.level")}</label>
      <meter
        id={id}
        class={active ? "level active" : "level"}
        min={0}
        max={1}
        low={0.25}
        high={0.85}
        optimum={0.5}
        value={level}
      />
    </div>
  );
}
