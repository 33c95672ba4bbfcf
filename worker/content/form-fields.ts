import { BACKGROUNDS, DEFAULT_BG_ID, TEMPLATES, type Template, VOICES } from "../../protocol/content.ts";
import { normalizeLanguage } from "../../protocol/languages.ts";
import { quoted } from "../../protocol/quoted.ts";
import { ContentApiError } from "./errors.ts";

/**
 * The create forms' field readers: each answers a wrong value at once with its own error_key (a 400),
 * so a task exists only for work that can run.
 */

/** A create form's fields, as readCreateForm returns them. */
export type FormFields = ReadonlyMap<string, string>;

export const badField = (errorKey: string, message: string) =>
  new ContentApiError("bad_request", errorKey, message);

export function required(fields: FormFields, name: string): string {
  const value = fields.get(name);
  if (value === undefined) throw badField("missing_field", `${name} is required`);
  return value;
}

/** A voice of GET /v1/voices; `fallback` when the field may be left out. */
export function voiceId(fields: FormFields, name = "voice_id", fallback?: string): string {
  const id = fallback === undefined ? required(fields, name) : (fields.get(name) ?? fallback);
  if (!VOICES.some((voice) => voice.voice_id === id)) {
    throw badField("unknown_voice", `${name} ${quoted(id)} is not one of GET /v1/voices`);
  }
  return id;
}

/** The language a catalog voice speaks (null for an id not in GET /v1/voices, which voiceId refuses). */
export function voiceLanguage(id: string): string | null {
  return VOICES.find((voice) => voice.voice_id === id)?.language ?? null;
}

export function bgId(fields: FormFields): string {
  const id = fields.get("bg_id") ?? DEFAULT_BG_ID;
  if (!BACKGROUNDS.some((bg) => bg.bg_id === id)) {
    throw badField("unknown_background", `bg_id ${quoted(id)} is not one of GET /v1/backgrounds`);
  }
  return id;
}

export function templateId(fields: FormFields, kind: Template["kind"], fallback?: string): string {
  const id =
    fallback === undefined ? required(fields, "template_id") : (fields.get("template_id") ?? fallback);
  if (!TEMPLATES.some((template) => template.template_id === id && template.kind === kind)) {
    throw badField(
      "unknown_template",
      `template_id ${quoted(id)} is not a ${kind} template of GET /v1/templates`,
    );
  }
  return id;
}

export function flag(fields: FormFields, name: string): boolean {
  const value = fields.get(name)?.toLowerCase();
  if (value === undefined || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw badField("invalid_boolean", `${name} must be true, false, 1 or 0`);
}

/** A whole number from `min` to `max`, or `fallback` when absent; a wrong one is `errorKey`. */
export function wholeNumber(
  fields: FormFields,
  name: string,
  range: { min: number; max: number; fallback: number; errorKey: string },
): number {
  const value = fields.get(name);
  if (value === undefined) return range.fallback;
  const number = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= range.min && number <= range.max)) {
    throw badField(range.errorKey, `${name} must be a whole number from ${range.min} to ${range.max}`);
  }
  return number;
}

/** One of `choices`, or `fallback` when absent; anything else is `errorKey`. */
export function oneOf<T extends string>(
  fields: FormFields,
  name: string,
  choices: readonly T[],
  fallback: T,
  errorKey: string,
): T {
  const value = fields.get(name);
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw badField(errorKey, `${name} must be one of ${choices.join(", ")}`);
}

/** `language`: en or vi; null (the note's own) when absent. */
export function outputLanguage(fields: FormFields, what: string): "en" | "vi" | null {
  const value = fields.get("language");
  if (value === undefined) return null;
  const choice = normalizeLanguage(value);
  if (choice.kind === "language" && (choice.code === "en" || choice.code === "vi")) return choice.code;
  throw badField(
    "unsupported_language",
    `language ${quoted(value)} is not supported for ${what}: use en or vi`,
  );
}
