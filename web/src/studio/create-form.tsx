import { useEffect, useState } from "preact/hooks";
import { contentApi } from "../api/client.ts";
import type { Background, NoteSummary, Template, Voice } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { backgroundThumbs, ThumbPicker, templateThumbs, VoicePicker } from "./catalog-pickers.tsx";
import { CHOICES_KEY, type Choices, createFields, FORM_OF, readChoices } from "./create-fields.ts";
import { STUDIO_KINDS } from "./studio-kinds.ts";
import { addStudioTask } from "./studio-tasks.ts";

interface Catalogs {
  voices: Voice[];
  backgrounds: Background[];
  templates: Template[];
}

/** The note the form makes content of: one of the caller's, or a community note (`community`). */
export type ChosenNote = Pick<NoteSummary, "note_id" | "title" | "language"> & { community: boolean };

/** Make something of a note: a short, its audio alone, a quiz video or a slide deck, with the catalogs' choices. */
export function CreateForm({ note }: { note: ChosenNote | null }) {
  const [catalogs, setCatalogs] = useState<Catalogs | null>(null);
  const [catalogError, setCatalogError] = useState<unknown>(null);
  const [choices, setChoices] = useState<Choices>(readChoices);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => localStorage.setItem(CHOICES_KEY, JSON.stringify(choices)), [choices]);
  useEffect(() => {
    Promise.all([contentApi.voices(), contentApi.backgrounds(), contentApi.templates()]).then(
      ([v, b, tpl]) =>
        setCatalogs({ voices: v.voices, backgrounds: b.backgrounds, templates: tpl.templates }),
      setCatalogError,
    );
  }, []);
  const choose = (part: Partial<Choices>) => setChoices((current) => ({ ...current, ...part }));

  // A voice in the note's language unless one was picked.
  const voices = catalogs?.voices ?? [];
  const voiceId =
    voices.find((v) => v.voice_id === choices.voice)?.voice_id ??
    voices.find((v) => v.language === note?.language)?.voice_id ??
    voices[0]?.voice_id ??
    "";
  const templates = (kind: Template["kind"]) =>
    (catalogs?.templates ?? []).filter((tpl) => tpl.kind === kind);
  const slideTemplate = choices.slideTemplate || templates("slide")[0]?.template_id || "";
  const quizTemplate = choices.quizTemplate || templates("quiz_video")[0]?.template_id || "";
  const bg = choices.bg || catalogs?.backgrounds[0]?.bg_id || "";

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!note) return;
    setSending(true);
    setError(null);
    try {
      const resolved = { ...choices, bg, slideTemplate, quizTemplate };
      const accepted = await contentApi.create(
        FORM_OF[choices.kind],
        createFields(resolved, note.note_id, voiceId, note.community),
      );
      addStudioTask({
        task_id: accepted.data.task_id,
        kind: choices.kind,
        note_title: note.title,
        created_at: Date.now(),
      });
    } catch (caught) {
      setError(caught);
    } finally {
      setSending(false);
    }
  };

  const { kind } = choices;
  return (
    <section class="card" aria-labelledby="create-title">
      <h2 id="create-title">{t("studio.create")}</h2>
      <form class="stack" onSubmit={submit}>
        <p class={note ? "" : "note note-warn"}>
          {note ? t("studio.fromNote", { title: note.title }) : t("studio.pickNoteFirst")}
        </p>
        <fieldset class="segmented wrap">
          <legend class="visually-hidden">{t("studio.whatToMake")}</legend>
          {STUDIO_KINDS.map((option) => (
            <label key={option} class={kind === option ? "selected" : ""}>
              <input
                type="radio"
                name="content-kind"
                value={option}
                checked={kind === option}
                onChange={() => choose({ kind: option })}
              />
              {t(`studio.kind.${option}`)}
            </label>
          ))}
        </fieldset>
        <ErrorNote error={catalogError} />
        {catalogs && kind !== "slide" && (
          <VoicePicker voices={voices} value={voiceId} onChange={(voice) => choose({ voice })} />
        )}
        {catalogs && (kind === "short" || kind === "quiz") && (
          <ThumbPicker
            name="background"
            legend={t("studio.background")}
            items={backgroundThumbs(catalogs.backgrounds)}
            value={bg}
            onChange={(id) => choose({ bg: id })}
          />
        )}
        {catalogs && (kind === "quiz" || kind === "slide") && (
          <ThumbPicker
            name="template"
            legend={t("studio.template")}
            items={templateThumbs(templates(kind === "quiz" ? "quiz_video" : "slide"))}
            value={kind === "quiz" ? quizTemplate : slideTemplate}
            onChange={(id) => choose(kind === "quiz" ? { quizTemplate: id } : { slideTemplate: id })}
          />
        )}
        {(kind === "short" || kind === "audio") && (
          <div class="field narrow">
            <label for="clip-duration">{t("studio.clipDuration")}</label>
            <input
              id="clip-duration"
              type="number"
              min={5}
              max={180}
              step={1}
              value={choices.clipDuration}
              onInput={(e) => choose({ clipDuration: (e.target as HTMLInputElement).value })}
            />
          </div>
        )}
        {kind === "slide" && (
          <div class="grid-2">
            <div class="field">
              <label for="slide-count">{t("studio.slideCount")}</label>
              <input
                id="slide-count"
                type="text"
                inputMode="numeric"
                aria-describedby="slide-count-hint"
                value={choices.slideCountRange}
                onInput={(e) => choose({ slideCountRange: (e.target as HTMLInputElement).value })}
              />
              <span id="slide-count-hint" class="muted small">
                {t("studio.slideCountHint")}
              </span>
            </div>
            <div class="field">
              <label for="slide-language">{t("studio.slideLanguage")}</label>
              <select
                id="slide-language"
                value={choices.slideLanguage}
                onChange={(e) => choose({ slideLanguage: (e.target as HTMLSelectElement).value })}
              >
                <option value="">{t("studio.noteLanguageDefault")}</option>
                <option value="en">English</option>
                <option value="vi">Tiếng Việt</option>
              </select>
            </div>
          </div>
        )}
        <div>
          <button type="submit" class="button" disabled={!note || !catalogs || sending}>
            {sending ? t("transcribe.sending") : t(`studio.make.${kind}`)}
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
    </section>
  );
}
