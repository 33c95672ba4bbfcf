/**
 * Shared pieces of the content tests: sample notes, real ffprobe/pdfinfo readers, and an abort-free
 * context that records progress reports.
 */
import { execFileSync } from "node:child_process";
import { parseAssTime } from "../../inference-node/content/ass.ts";
import type { ContentProgress } from "../../inference-node/content/progress.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";

export const ENGLISH_NOTE: NoteSnapshot = {
  note_id: "note-en-1",
  title: "The Mekong River",
  language: "en",
  content: `# Overview
The Mekong is one of the longest rivers in Asia. It flows about 4,350 kilometres through six countries, from the Tibetan Plateau to the South China Sea.
Around 60 million people depend on the river for food, water and transport.

# Ecology
The Mekong has more fish species than any river except the Amazon. The giant catfish can weigh 300 kilograms.
Floods every monsoon season bring sediment that keeps the delta fertile. Rice farmers in Vietnam rely on this cycle.

# Threats
Dams in China and Laos hold back sediment and block fish migration. Sea level rise pushes salt water into the delta.
Scientists warn that the delta could shrink by half before 2100.`,
};

export const VIETNAMESE_NOTE: NoteSnapshot = {
  note_id: "note-vi-1",
  title: "Sông Mê Kông",
  language: "vi",
  content: `# Tổng quan
Sông Mê Kông là một trong những con sông dài nhất châu Á. Sông chảy qua sáu quốc gia, từ cao nguyên Tây Tạng đến Biển Đông.
Khoảng 60 triệu người sống nhờ nguồn nước và thủy sản của dòng sông.

# Đồng bằng
Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam. Lũ hằng năm mang phù sa bồi đắp cho ruộng đồng.
Nông dân ở Cần Thơ và An Giang trồng lúa theo mùa nước nổi.

# Thách thức
Các đập thủy điện ở Trung Quốc và Lào giữ lại phù sa. Nước biển dâng đẩy nước mặn vào sâu trong đồng bằng.
Các nhà khoa học cảnh báo đồng bằng có thể bị thu hẹp trước năm 2100.`,
};

/**
 * A note sent to POST /v1/notes without a title: the Worker gave it its first ten words as one
 * (worker/content/notes.ts deriveTitle), so its title is its opening cut short.
 */
export const UNTITLED_NOTE_EN: NoteSnapshot = {
  note_id: "note-en-untitled",
  title: "Photosynthesis is the process by which green plants use sunlight…",
  language: "en",
  content:
    "Photosynthesis is the process by which green plants use sunlight to make food from carbon dioxide and water. " +
    "It happens in the chloroplasts of leaf cells. Chlorophyll absorbs light energy. Oxygen is released as a by-product. " +
    "The glucose made is used for growth and energy. Without photosynthesis, life on Earth would not exist as we know it.",
};

/** A note with dates in several English forms, out of order (the study guide's timeline sorts them). */
export const HISTORY_NOTE_EN: NoteSnapshot = {
  note_id: "note-en-history",
  title: "Vietnam in the 20th Century",
  language: "en",
  content: `# Independence
The Declaration of Independence was read in Hanoi on 2 September 1945. The August Revolution is the uprising that brought the Viet Minh to power in August 1945.

# Wars
The First Indochina War ended with the Battle of Dien Bien Phu in 1954. Saigon fell on April 30, 1975, and the country was reunified in 1976.

# Reform
Doi Moi is the economic reform that the Communist Party launched in 1986. Vietnam joined the World Trade Organization in 2007.`,
};

/** The same kind of note in Vietnamese date forms ("năm 1945", "ngày 2 tháng 9 năm 1945"). */
export const HISTORY_NOTE_VI: NoteSnapshot = {
  note_id: "note-vi-history",
  title: "Việt Nam thế kỷ 20",
  language: "vi",
  content: `# Độc lập
Chủ tịch Hồ Chí Minh đọc Tuyên ngôn Độc lập tại Quảng trường Ba Đình ngày 2 tháng 9 năm 1945. Cách mạng tháng Tám là cuộc tổng khởi nghĩa giành chính quyền vào tháng 8 năm 1945.

# Chiến tranh
Chiến thắng Điện Biên Phủ năm 1954 kết thúc cuộc kháng chiến chống Pháp. Ngày 30 tháng 4 năm 1975, đất nước thống nhất.

# Đổi mới
Đổi Mới là công cuộc cải cách kinh tế bắt đầu từ năm 1986. Việt Nam gia nhập Tổ chức Thương mại Thế giới năm 2007.`,
};

/** A note with no date anywhere (its study guide has no timeline). */
export const UNDATED_NOTE: NoteSnapshot = {
  note_id: "note-en-undated",
  title: "Photosynthesis",
  language: "en",
  content: `# Basics
Photosynthesis is the process by which plants turn light into chemical energy. Chlorophyll is the green pigment that absorbs the light.
Plants take in carbon dioxide through small pores called stomata.

# Products
Photosynthesis releases oxygen as a by-product. The glucose it makes feeds the plant and, through food chains, most animals.`,
};

export interface Probe {
  duration: number;
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string }[];
}

/** ffprobe's view of a media file. */
export function probe(path: string): Probe {
  const out = execFileSync("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "format=duration:stream=codec_type,codec_name,width,height,pix_fmt",
    "-of",
    "json",
    path,
  ]);
  const json = JSON.parse(out.toString("utf8")) as {
    format: { duration: string };
    streams: Probe["streams"];
  };
  return { duration: Number(json.format.duration), streams: json.streams };
}

/** The text of a PDF, from poppler's pdftotext (reading order, UTF-8). */
export function pdfText(path: string): string {
  return execFileSync("pdftotext", ["-enc", "UTF-8", path, "-"]).toString("utf8");
}

/** Page count of a PDF, from poppler's pdfinfo. */
export function pdfPages(path: string): number {
  const out = execFileSync("pdfinfo", [path]).toString("utf8");
  return Number(/^Pages:\s+(\d+)/m.exec(out)?.[1]);
}

/** A task context whose reports are kept for assertions. */
export function recordingContext(signal: AbortSignal = new AbortController().signal) {
  const reports: ContentProgress[] = [];
  return { reports, ctx: { signal, report: (update: ContentProgress) => reports.push(update) } };
}

/** Dialogue events of an ASS document: start, end, style and text. */
export function assEvents(ass: string): { start: number; end: number; style: string; text: string }[] {
  return ass
    .split("\n")
    .filter((line) => line.startsWith("Dialogue:"))
    .map((line) => {
      const fields = line.slice("Dialogue:".length).split(",");
      return {
        start: parseAssTime(fields[1] ?? ""),
        end: parseAssTime(fields[2] ?? ""),
        style: fields[3] ?? "",
        text: fields.slice(9).join(","),
      };
    });
}

/** Command lines of running processes that mention `needle` (e.g. a task's temp folder). */
export function processesMentioning(needle: string): string[] {
  const out = execFileSync("ps", ["-eo", "args"]).toString("utf8");
  return out.split("\n").filter((line) => line.includes(needle) && !line.includes("ps -eo"));
}
