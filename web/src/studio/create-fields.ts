import {
  type FieldSpec,
  isStudioKind,
  STUDIO_STORAGE_PREFIX,
  type StudioKind,
  type StudioKindSpec,
} from "./studio-kinds.ts";

/** The create form's choices, kept so a reload loses nothing: the kind, and what was picked per kind. */
export interface Choices {
  kind: StudioKind;
  /** By kind, by field name: what the person picked ("" = nothing, the field's default applies). */
  values: Partial<Record<StudioKind, Record<string, string>>>;
}
export const CHOICES_KEY = `${STUDIO_STORAGE_PREFIX}choices`;
const DEFAULT_CHOICES: Choices = { kind: "short", values: {} };

export function readChoices(): Choices {
  try {
    const saved = JSON.parse(localStorage.getItem(CHOICES_KEY) ?? "{}") as Partial<Choices>;
    const values = typeof saved.values === "object" && saved.values !== null ? saved.values : {};
    return isStudioKind(saved.kind) ? { kind: saved.kind, values } : DEFAULT_CHOICES;
  } catch {
    return DEFAULT_CHOICES;
  }
}

/** The catalogs the form's catalog fields choose from (GET /v1/voices, /v1/backgrounds, /v1/templates). */
export interface FormCatalogs {
  voices: readonly { voice_id: string; language: string }[];
  backgrounds: readonly { bg_id: string }[];
  templates: readonly { template_id: string; kind: string }[];
}

/**
 * The value a field stands at: what was picked, else its default. A catalog field's pick counts while
 * the catalog still lists it; its default is the catalog's first fitting entry (a voice: the first in
 * the note's language).
 *
 * @example fieldValue({ type: "number", name: "count", label: "…", min: 1, max: 50, default: "10" }, {}, catalogs, "en") // "10"
 */
export function fieldValue(
  field: FieldSpec,
  picked: Readonly<Record<string, string>>,
  catalogs: FormCatalogs,
  noteLanguage: string | null,
): string {
  const choice = picked[field.name] ?? "";
  switch (field.type) {
    case "fixed":
      return field.value;
    case "voice": {
      const { voices } = catalogs;
      return (
        voices.find((v) => v.voice_id === choice)?.voice_id ??
        voices.find((v) => v.language === noteLanguage)?.voice_id ??
        voices[0]?.voice_id ??
        ""
      );
    }
    case "optional_voice":
      return catalogs.voices.some((v) => v.voice_id === choice) ? choice : "";
    case "background":
      return (
        catalogs.backgrounds.find((bg) => bg.bg_id === choice)?.bg_id ?? catalogs.backgrounds[0]?.bg_id ?? ""
      );
    case "template": {
      const fitting = catalogs.templates.filter((tpl) => tpl.kind === field.templateKind);
      return fitting.find((tpl) => tpl.template_id === choice)?.template_id ?? fitting[0]?.template_id ?? "";
    }
    case "choice":
      if (field.name in picked) return choice;
      if (!field.otherThanNote) return field.default;
      return field.choices.find((option) => option.value !== noteLanguage)?.value ?? field.default;
    default:
      return field.name in picked ? choice : field.default;
  }
}

/**
 * The fields a create request sends for a kind (application/x-www-form-urlencoded): the note, then each
 * field of the kind's row that has a value; the API checks them and answers a refusal with its error_key.
 *
 * @example createFields(kindSpec("audio"), {}, catalogs, { note_id: "note-1", language: "en", community: false })
 * // { note_id: "note-1", voice_id: "en-female", clip_duration: "30", is_audio_only: "true" }
 */
export function createFields(
  spec: StudioKindSpec,
  picked: Readonly<Record<string, string>>,
  catalogs: FormCatalogs,
  note: { note_id: string; language: string | null; community: boolean },
): Record<string, string> {
  const fields: Record<string, string> = { note_id: note.note_id };
  // Another owner's published note: the API looks it up among the community notes.
  if (note.community) fields.community = "true";
  for (const field of spec.fields) {
    const value = fieldValue(field, picked, catalogs, note.language).trim();
    if (value) fields[field.name] = value;
  }
  return fields;
}
