/**
 * Object keys of stored media: uploads are `uploads/<random UUID>/<slug of the client filename>`, a
 * task's outputs `outputs/<task UUID>/<random UUID>/<slug>`. The random UUID makes a key unguessable
 * (a task id is no secret: it is in task views, history and webhooks); the task id first keeps a task's
 * outputs under one prefix for deletion; the slug only helps a person reading a listing. GET /media
 * serves only these shapes, and outputs stored before the random segment (`outputs/<task UUID>/<slug>`).
 */

const UPLOAD_PREFIX = "uploads/";
const OUTPUT_PREFIX = "outputs/";
const MAX_SLUG_LENGTH = 80;
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const SLUG = `[a-z0-9][a-z0-9._-]{0,${MAX_SLUG_LENGTH - 1}}`;
const UPLOAD_KEY = new RegExp(`^${UPLOAD_PREFIX}${UUID}/${SLUG}$`);
const OUTPUT_KEY = new RegExp(`^${OUTPUT_PREFIX}${UUID}/${UUID}/${SLUG}$`);
/** The output shape minted before the random segment: still served, never minted. */
const LEGACY_OUTPUT_KEY = new RegExp(`^${OUTPUT_PREFIX}${UUID}/${SLUG}$`);

/**
 * A new, unguessable key for an upload. Nothing of the filename survives but a lowercase ASCII slug.
 *
 * @example newObjectKey("Bài giảng 1.MP3") // "uploads/6f1c…/bai-giang-1.mp3"
 */
export function newObjectKey(filename: string | null): string {
  return `${UPLOAD_PREFIX}${crypto.randomUUID()}/${slugify(filename ?? "")}`;
}

/** Whether `key` has exactly the shape `newObjectKey` makes (no `..`, no encoded characters, no extra segments). */
export function isUploadKey(key: string): boolean {
  return UPLOAD_KEY.test(key) && !key.includes("..");
}

/**
 * A new, unguessable key for one of a task's output files, under the task's prefix (`outputPrefix`).
 *
 * @example outputKey("6f1c…", "Short.MP4") // "outputs/6f1c…/0b9e…/short.mp4"
 */
export function outputKey(taskId: string, name: string): string {
  return `${outputPrefix(taskId)}${crypto.randomUUID()}/${slugify(name)}`;
}

/**
 * Where a compatible call's known-speaker reference clips live: beside its upload, under the upload's
 * random UUID, outside every shape GET /media serves (deleted by this prefix with the upload).
 *
 * @example knownSpeakerPrefix("uploads/6f1c…/call.wav") // "known-speakers/6f1c…/"
 */
export function knownSpeakerPrefix(uploadKey: string): string {
  return `known-speakers/${uploadKey.split("/")[1] ?? ""}/`;
}

/** Where every output of a task lives (deleted by this prefix). */
export function outputPrefix(taskId: string): string {
  return `${OUTPUT_PREFIX}${taskId}/`;
}

/** Whether `key` is an upload or a task output, exactly as minted (what GET /media may serve). */
export function isServableKey(key: string): boolean {
  const output = OUTPUT_KEY.test(key) || LEGACY_OUTPUT_KEY.test(key);
  return isUploadKey(key) || (output && !key.includes(".."));
}

/** Lowercase ASCII letters, digits, `.`, `_` and `-` from the last path segment of a filename. */
export function slugify(filename: string): string {
  const base = filename.split(/[/\\]/).pop() ?? "";
  const ascii = base
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // combining marks: "à" -> "a"
    .replace(/[đĐ]/g, "d") // the one Vietnamese letter NFKD does not decompose
    .toLowerCase();
  const dot = ascii.lastIndexOf(".");
  const clean = (part: string) => part.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  const stem = clean(dot > 0 ? ascii.slice(0, dot) : ascii) || "file";
  const extension = dot > 0 ? clean(ascii.slice(dot + 1)).slice(0, 10) : "";
  const suffix = extension ? `.${extension}` : "";
  return `${stem.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, "") || "file"}${suffix}`;
}
