import { useRef } from "preact/hooks";
import { t } from "../../i18n/i18n.ts";
import { formatClock } from "../../ui/format.ts";
import type { Chapter } from "../result-data.ts";

/** A podcast's player with its chapters: a chapter's button plays from where it starts. */
export function ChaptersPreview(props: { audio: string; chapters: readonly Chapter[] }) {
  const player = useRef<HTMLAudioElement>(null);
  const seek = (start: number) => {
    const audio = player.current;
    if (!audio) return;
    audio.currentTime = start;
    void audio.play().catch(() => undefined);
  };
  return (
    <div class="stack">
      {/* biome-ignore lint/a11y/useMediaCaption: the podcast's script is a download beside it (txt, json) */}
      <audio ref={player} class="result-audio" controls preload="metadata" src={props.audio} />
      {props.chapters.length > 0 && (
        <nav aria-label={t("studioKinds.preview.chapters")}>
          <ol class="plain-list chapters">
            {props.chapters.map((chapter) => (
              <li key={`${chapter.start}-${chapter.title}`}>
                <button type="button" class="button button-ghost" onClick={() => seek(chapter.start)}>
                  <span class="muted">{formatClock(chapter.start)}</span> {chapter.title}
                </button>
              </li>
            ))}
          </ol>
        </nav>
      )}
    </div>
  );
}
