import type { ContentOutputRole } from "../../../protocol/content-params.ts";
import type { ContentFileLink } from "../api/types.ts";
import type { MessageKey } from "../i18n/messages.ts";

/** Each file role's name for people (en + vi through the message keys); the type insists on every role. */
const FILE_LABEL: Record<ContentOutputRole, MessageKey> = {
  video: "studioKinds.file.video",
  audio: "studioKinds.file.audio",
  audio_mp3: "studioKinds.file.audio_mp3",
  pptx: "studioKinds.file.pptx",
  pdf: "studioKinds.file.pdf",
  json: "studioKinds.file.json",
  csv: "studioKinds.file.csv",
  txt: "studioKinds.file.txt",
  markdown: "studioKinds.file.markdown",
  apkg: "studioKinds.file.apkg",
  opml: "studioKinds.file.opml",
  svg: "studioKinds.file.svg",
  png: "studioKinds.file.png",
  srt: "studioKinds.file.srt",
  vtt: "studioKinds.file.vtt",
  moodle_xml: "studioKinds.file.moodle_xml",
  gift: "studioKinds.file.gift",
  chapters: "studioKinds.file.chapters",
};

export interface DownloadItem {
  role: string;
  /** The role's name for people; null for a role this console does not know yet (shown as the role). */
  label: MessageKey | null;
  href: string;
  /** What the browser saves it as: the note's title and the file's own extension. */
  filename: string;
  bytes: number;
}

/**
 * The extension of a file link's last path segment (stored objects keep their role's extension).
 *
 * @example extensionOf("/media/outputs/6f1c/deck.pdf?expires=1&sig=x") // "pdf"
 */
export function extensionOf(link: string): string {
  const name = new URL(link, "http://console.invalid").pathname.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/**
 * A finished task's downloads: one per file of `data.files`, in the server's order, named for people
 * and saved under `baseName`.
 *
 * @example downloadList([{ role: "apkg", content_type: "application/apkg", bytes: 9, url: "/media/o/cards.apkg" }], "Mekong")
 * // [{ role: "apkg", label: "studioKinds.file.apkg", href: "/media/o/cards.apkg", filename: "Mekong.apkg", bytes: 9 }]
 */
export function downloadList(files: readonly ContentFileLink[], baseName: string): DownloadItem[] {
  return files.map((file) => {
    const extension = extensionOf(file.url);
    return {
      role: file.role,
      label: Object.hasOwn(FILE_LABEL, file.role) ? FILE_LABEL[file.role] : null,
      href: file.url,
      filename: extension ? `${baseName}.${extension}` : baseName,
      bytes: file.bytes,
    };
  });
}

/**
 * A note title as a file name: letters and digits, the rest one dash.
 *
 * @example fileBaseName("Sông Mê Kông: 4,350 km") // "Sông-Mê-Kông-4-350-km"
 */
export function fileBaseName(title: string): string {
  return title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "") || "voxedge";
}

/** The link of the task's first file of `role`, if it made one. */
export function fileOf(files: readonly ContentFileLink[], role: ContentOutputRole): string | null {
  return files.find((file) => file.role === role)?.url ?? null;
}
