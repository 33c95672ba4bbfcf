import { useEffect, useRef, useState } from "preact/hooks";
import type { Background, Template, Voice } from "../api/types.ts";
import { catalogName } from "../i18n/catalog-names.ts";
import { lang, t } from "../i18n/i18n.ts";

/**
 * Pickers for the content catalogs: voices (each with a play button for its spoken sample) and
 * thumbnails (backgrounds, templates). Radio groups, so the arrow keys move the choice; the previews are
 * public files the API links (no key needed).
 */

/** A voice's name in the console's language. */
export const voiceName = (voice: Voice) => catalogName("voice", voice.voice_id, voice.name, lang.value);

export function VoicePicker(props: {
  voices: readonly Voice[];
  value: string;
  onChange: (id: string) => void;
}) {
  const player = useRef<HTMLAudioElement | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  useEffect(() => () => player.current?.pause(), []);

  const toggle = (voice: Voice) => {
    player.current?.pause();
    if (playing === voice.voice_id) return setPlaying(null);
    const audio = new Audio(voice.sample_url);
    player.current = audio;
    audio.onended = () => setPlaying(null);
    audio.onerror = () => setPlaying(null);
    setPlaying(voice.voice_id);
    audio.play().catch(() => setPlaying(null));
  };

  return (
    <fieldset class="picker">
      <legend>{t("studio.voice")}</legend>
      <ul class="plain-list voice-list">
        {props.voices.map((voice) => (
          <li key={voice.voice_id} class={`voice${props.value === voice.voice_id ? " selected" : ""}`}>
            <label>
              <input
                type="radio"
                name="voice"
                value={voice.voice_id}
                checked={props.value === voice.voice_id}
                onChange={() => props.onChange(voice.voice_id)}
              />
              {voiceName(voice)}
            </label>
            <button
              type="button"
              class="button button-ghost play"
              onClick={() => toggle(voice)}
              aria-label={t(playing === voice.voice_id ? "studio.stopSample" : "studio.playSample", {
                name: voiceName(voice),
              })}
            >
              <span aria-hidden="true">{playing === voice.voice_id ? "■" : "▶"}</span>
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

type Thumb = { id: string; name: string; preview_url: string };

export const backgroundThumbs = (list: readonly Background[]): Thumb[] =>
  list.map((bg) => ({
    id: bg.bg_id,
    name: catalogName("background", bg.bg_id, bg.name, lang.value),
    preview_url: bg.preview_url,
  }));
export const templateThumbs = (list: readonly Template[]): Thumb[] =>
  list.map((tpl) => ({
    id: tpl.template_id,
    name: catalogName("template", tpl.template_id, tpl.name, lang.value),
    preview_url: tpl.preview_url,
  }));

/** A choice among thumbnails; an image no node has rendered yet leaves just the name. */
export function ThumbPicker(props: {
  name: string;
  legend: string;
  items: readonly Thumb[];
  value: string;
  onChange: (id: string) => void;
}) {
  const [missing, setMissing] = useState<ReadonlySet<string>>(new Set());
  return (
    <fieldset class="picker">
      <legend>{props.legend}</legend>
      <div class="thumbs">
        {props.items.map((item) => (
          <label key={item.id} class={`thumb${props.value === item.id ? " selected" : ""}`}>
            <input
              type="radio"
              name={props.name}
              value={item.id}
              checked={props.value === item.id}
              onChange={() => props.onChange(item.id)}
            />
            {!missing.has(item.id) && (
              <img
                src={item.preview_url}
                alt=""
                loading="lazy"
                onError={() => setMissing((previous) => new Set(previous).add(item.id))}
              />
            )}
            <span>{item.name}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
