/**
 * Multipart text fields as the official OpenAI SDKs and curl users write them, read back into values:
 * an array as `key[]` (openai-node and openai-python) or as a repeated `key`; an object as
 * `key[prop]` parts (the SDKs' nested encoding) or as one JSON string in `key` (curl, hand-written
 * forms). Pure functions over the form's field map (name → values in order).
 */

export type FormFields = ReadonlyMap<string, readonly string[]>;

/** The first non-empty value of a plain field; an empty one counts as not sent. */
export function single(fields: FormFields, name: string): string | undefined {
  const value = fields.get(name)?.[0];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * An array field from both spellings, `name[]` first, empty values dropped.
 *
 * @example list(new Map([["include[]", ["logprobs"]]]), "include") // ["logprobs"]
 */
export function list(fields: FormFields, name: string): string[] {
  return [...(fields.get(`${name}[]`) ?? []), ...(fields.get(name) ?? [])].filter((value) => value !== "");
}

/** Why an object field could not be read: the caller answers it naming the field. */
export class FormValueError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An object field: `name[prop]` parts (first value of each) if any were sent, else `name`'s value,
 * parsed as JSON when it starts with `{` and kept as a string otherwise (`"auto"`); undefined when
 * neither was sent. Values stay strings from parts and keep their JSON types from a JSON string: the
 * schema that checks them coerces numbers.
 *
 * @example objectValue(new Map([["chunking_strategy[type]", ["server_vad"]]]), "chunking_strategy") // { type: "server_vad" }
 * @example objectValue(new Map([["chunking_strategy", ['{"type":"server_vad"}']]]), "chunking_strategy") // { type: "server_vad" }
 */
export function objectValue(fields: FormFields, name: string): unknown {
  const prefix = `${name}[`;
  const parts: Record<string, string> = {};
  let hasParts = false;
  for (const [key, values] of fields) {
    if (!key.startsWith(prefix) || !key.endsWith("]") || values[0] === undefined) continue;
    const prop = key.slice(prefix.length, -1);
    // `name[]` is an array's spelling and `name[a][b]` a deeper nesting no OpenAI object field has
    if (prop === "" || prop.includes("[") || prop.includes("]")) {
      throw new FormValueError(name, `${key} is not a field of ${name}`);
    }
    parts[prop] = values[0];
    hasParts = true;
  }
  if (hasParts) return parts;
  const value = single(fields, name);
  if (value === undefined || !value.trimStart().startsWith("{")) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new FormValueError(name, `${name} is not valid JSON: send "auto" or a JSON object`);
  }
}
