import type { Background, Template, Voice } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { backgroundThumbs, ThumbPicker, templateThumbs, VoicePicker, voiceName } from "./catalog-pickers.tsx";
import type { FieldSpec } from "./studio-kinds.ts";

export interface Catalogs {
  voices: Voice[];
  backgrounds: Background[];
  templates: Template[];
}

/** One field of a kind's row in the create form, asked the way its type says; `fixed` fields ask nothing. */
export function KindField(props: {
  field: FieldSpec;
  value: string;
  catalogs: Catalogs;
  onChange: (value: string) => void;
}) {
  const { field, value, catalogs, onChange } = props;
  const id = `field-${field.name}`;
  const read = (event: Event) => onChange((event.target as HTMLInputElement | HTMLSelectElement).value);
  switch (field.type) {
    case "fixed":
      return null;
    case "voice":
      return <VoicePicker voices={catalogs.voices} value={value} onChange={onChange} />;
    case "optional_voice":
      return (
        <div class="field">
          <label for={id}>{t(field.label)}</label>
          <select id={id} value={value} onChange={read}>
            <option value="">{t("studioKinds.noSecondVoice")}</option>
            {catalogs.voices.map((voice) => (
              <option key={voice.voice_id} value={voice.voice_id}>
                {voiceName(voice)}
              </option>
            ))}
          </select>
        </div>
      );
    case "background":
      return (
        <ThumbPicker
          name="background"
          legend={t("studio.background")}
          items={backgroundThumbs(catalogs.backgrounds)}
          value={value}
          onChange={onChange}
        />
      );
    case "template":
      return (
        <ThumbPicker
          name="template"
          legend={t("studio.template")}
          items={templateThumbs(catalogs.templates.filter((tpl) => tpl.kind === field.templateKind))}
          value={value}
          onChange={onChange}
        />
      );
    case "number":
      return (
        <div class="field narrow">
          <label for={id}>{t(field.label)}</label>
          <input
            id={id}
            type="number"
            min={field.min}
            max={field.max}
            step={1}
            value={value}
            onInput={read}
          />
        </div>
      );
    case "choice":
      return (
        <div class="field">
          <label for={id}>{t(field.label)}</label>
          <select id={id} value={value} onChange={read}>
            {field.choices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {t(choice.label)}
              </option>
            ))}
          </select>
        </div>
      );
    case "text":
      return (
        <div class="field">
          <label for={id}>{t(field.label)}</label>
          <input id={id} type="text" aria-describedby={`${id}-hint`} value={value} onInput={read} />
          <span id={`${id}-hint`} class="muted small">
            {t(field.hint)}
          </span>
        </div>
      );
  }
}
