import { api, type TranscribeOptions } from "../api/client.ts";
import { putWithProgress, type UploadProgress } from "../api/upload.ts";

/**
 * The recommended flow for a file (speech-to-text spec): presign, PUT the bytes straight to storage
 * with progress, then enqueue the stored object. Resolves the new task's id.
 *
 * @example const taskId = await submitFile(file, { language: "vi", context: "" }, draw, abort.signal);
 */
export async function submitFile(
  file: File,
  options: TranscribeOptions,
  onProgress: (progress: UploadProgress) => void,
  signal: AbortSignal,
): Promise<string> {
  const contentType = file.type || "application/octet-stream";
  const presign = await api.presign(file.name, contentType);
  await putWithProgress(presign.upload_url, file, contentType, onProgress, signal);
  const accepted = await api.transcribeObject(presign.object_key, options);
  return accepted.task_id;
}

/** The media's length in seconds as the browser reads it, or null when it cannot (no such codec, not media). */
export function readDuration(file: File): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const media = document.createElement(file.type.startsWith("video/") ? "video" : "audio");
    const done = (value: number | null) => {
      URL.revokeObjectURL(url);
      media.removeAttribute("src");
      resolve(value);
    };
    media.preload = "metadata";
    media.onloadedmetadata = () => done(Number.isFinite(media.duration) ? media.duration : null);
    media.onerror = () => done(null);
    media.src = url;
  });
}
