import { useEffect, useRef, useState } from "preact/hooks";
import type { TranscriptionResult } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { formatClock } from "../ui/format.ts";
import { exportFile } from "./exports.ts";
import { speakerColor, speakersOf } from "./speakers.ts";
import { segmentAt, wordsOf } from "./sync.ts";

/**
 * The audio player and the transcript kept in step with it: the segment playing is highlighted (and
 * scrolled to), a segment's time button or any word seeks the player there. The translation, when the
 * deployment made one, sits beside it.
 */
export function Transcript(props: { result: TranscriptionResult; speakerNames: Record<string, string> }) {
  const { result, speakerNames } = props;
  const audio = useRef<HTMLAudioElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const [time, setTime] = useState(0);
  const segments = result.segments;
  const speakers = speakersOf(segments);
  const current = segmentAt(segments, time);
  const captions = useCaptions(result, speakerNames);

  useEffect(() => {
    const row = list.current?.querySelector<HTMLElement>(`[data-index="${current}"]`);
    if (row && audio.current && !audio.current.paused)
      row.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [current]);

  const seek = (seconds: number) => {
    const player = audio.current;
    if (!player) return;
    player.currentTime = seconds;
    setTime(seconds);
    void player.play().catch(() => {
      // playback can be refused (no user activation yet, no codec); the seek itself stands
    });
  };

  const seekToWord = (event: MouseEvent) => {
    const start = (event.target as HTMLElement).dataset.start;
    if (start !== undefined) seek(Number(start));
  };

  return (
    <div class="transcript-layout">
      {result.audio_url ? (
        <audio
          ref={audio}
          class="player"
          controls
          preload="metadata"
          src={result.audio_url}
          aria-label={t("transcript.player")}
          onTimeUpdate={(event) => setTime((event.target as HTMLAudioElement).currentTime)}
          onSeeked={(event) => setTime((event.target as HTMLAudioElement).currentTime)}
        >
          <track kind="captions" src={captions ?? undefined} label={t("transcript.title")} default />
        </audio>
      ) : (
        <p class="muted">{t("transcript.noAudio")}</p>
      )}
      <div class={result.translation ? "columns" : ""}>
        <section aria-labelledby="transcript-title">
          <h2 id="transcript-title">{t("transcript.title")}</h2>
          {segments.length === 0 ? (
            <p class="transcript-text">{result.text || t("transcript.empty")}</p>
          ) : (
            <ol class="segments" ref={list}>
              {segments.map((segment, index) => (
                <li
                  key={`${segment.start}-${index}`}
                  data-index={index}
                  class={index === current ? "segment current" : "segment"}
                  aria-current={index === current ? "true" : undefined}
                >
                  <button
                    type="button"
                    class="segment-time"
                    onClick={() => seek(segment.start)}
                    aria-label={t("transcript.seekTo", { time: formatClock(segment.start) })}
                  >
                    {formatClock(segment.start)}
                  </button>
                  {segment.speaker && (
                    <span
                      class="speaker-tag"
                      style={{ "--speaker": speakerColor(speakers, segment.speaker) }}
                    >
                      {speakerNames[segment.speaker] || segment.speaker}
                    </span>
                  )}
                  {/* biome-ignore lint/a11y: clicking a word is a mouse shortcut; the time button is the keyboard way to seek */}
                  <span class="segment-text" onClick={seekToWord}>
                    {wordsOf(segment).map((word, w) => (
                      <span key={w} class="word" data-start={word.start}>
                        {word.text}{" "}
                      </span>
                    ))}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </section>
        {result.translation && (
          <section aria-labelledby="translation-title">
            <h2 id="translation-title">{t("transcript.translation")}</h2>
            <p class="transcript-text">{result.translation}</p>
          </section>
        )}
      </div>
    </div>
  );
}

/** The transcript as a WebVTT captions track for the player: a blob URL, released when it changes. */
function useCaptions(result: TranscriptionResult, speakerNames: Record<string, string>): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (result.segments.length === 0) {
      setUrl(null);
      return;
    }
    const next = URL.createObjectURL(exportFile("vtt", result, speakerNames));
    setUrl(next);
    return () => URL.revokeObjectURL(next);
  }, [result, speakerNames]);
  return url;
}
