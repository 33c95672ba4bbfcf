/**
 * An audio overview from its script: each line spoken by its host's voice, the lines joined with
 * short pauses (longer where the speaker changes), then encoded as M4A (AAC, with the chapters in
 * its metadata, which podcast players show) and MP3, beside the script as JSON and TXT with the
 * speaker and time of every line and the chapters.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { narrationVoices, type Voice } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { type RenderTools, runFfmpeg } from "../ffmpeg.ts";
import type { ContentLanguage } from "../script.ts";
import type { SpeechSynthesizer } from "../tts/synthesizer.ts";
import { concatPcm, readWav, resample, writeWav } from "../tts/wav.ts";
import type { Host, PodcastScript } from "./script.ts";

/** The mix's rate: espeak-ng's own, so its lines need no resampling. */
const SAMPLE_RATE = 22_050;
const PAUSE_SAME_HOST_SEC = 0.3;
const PAUSE_NEW_HOST_SEC = 0.55;

export interface TimedLine {
  host: Host;
  voice_id: string;
  speaker: string;
  text: string;
  start: number;
  end: number;
}

export interface Chapter {
  title: string;
  start: number;
  end: number;
}

export interface PodcastAudio {
  m4aPath: string;
  mp3Path: string;
  scriptJsonPath: string;
  scriptTxtPath: string;
  durationSec: number;
  lines: TimedLine[];
  chapters: Chapter[];
  voices: Partial<Record<Host, string>>;
}

/**
 * The hosts' voices: those asked for, else the language's female voice for A and male for B
 * (protocol's narrationVoices, the rule the create form checks too); any problem is invalid_params.
 */
export function podcastVoices(
  language: ContentLanguage,
  asked: { voice_id?: string | null; voice_id_2?: string | null },
  twoHosts: boolean,
): Partial<Record<Host, Voice>> {
  const voices = narrationVoices(language, asked, twoHosts);
  if (!voices.ok) throw new ContentError("invalid_params", voices.message);
  return voices.second ? { A: voices.first, B: voices.second } : { A: voices.first };
}

export interface PodcastRender {
  title: string;
  script: PodcastScript;
  voices: Partial<Record<Host, Voice>>;
  synthesizer: SpeechSynthesizer;
  tools: RenderTools;
  workDir: string;
  signal: AbortSignal;
  /** How far each phase is (0..1): the lines spoken, then the two encodings. */
  onProgress?: (phase: "speaking" | "encoding", fraction: number) => void;
}

/**
 * Speaks, mixes and encodes the overview.
 *
 * @example
 * const audio = await renderPodcast({ title, script, voices, synthesizer, tools, workDir, signal });
 */
export async function renderPodcast(input: PodcastRender): Promise<PodcastAudio> {
  const { script, voices } = input;
  const pieces: (Int16Array | number)[] = [];
  const lines: TimedLine[] = [];
  let at = 0;
  for (const [index, line] of script.lines.entries()) {
    const voice = voices[line.host];
    if (!voice) throw new ContentError("invalid_params", `host ${line.host} has no voice`);
    const speech = await input.synthesizer.synthesize(
      line.text,
      voice,
      input.signal,
      join(input.workDir, `line-${index}.wav`),
    );
    const pcm = resample(await readWav(speech.wavPath), SAMPLE_RATE);
    if (index > 0) {
      const pause = script.lines[index - 1]?.host === line.host ? PAUSE_SAME_HOST_SEC : PAUSE_NEW_HOST_SEC;
      pieces.push(pause);
      at += pause;
    }
    const seconds = pcm.samples.length / SAMPLE_RATE;
    lines.push({
      host: line.host,
      voice_id: voice.voice_id,
      speaker: voice.name.split(" (")[0] ?? voice.name,
      text: line.text,
      start: round(at),
      end: round(at + seconds),
    });
    pieces.push(pcm.samples);
    at += seconds;
    input.onProgress?.("speaking", (index + 1) / script.lines.length);
  }
  const durationSec = round(at);
  const chapters = chaptersOf(script, lines, durationSec);
  const wavPath = join(input.workDir, "podcast.wav");
  await writeWav(wavPath, concatPcm(SAMPLE_RATE, pieces));

  const metadataPath = join(input.workDir, "chapters.txt");
  await writeFile(metadataPath, ffMetadata(input.title, chapters));
  const m4aPath = join(input.workDir, "podcast.m4a");
  const mp3Path = join(input.workDir, "podcast.mp3");
  const run = { signal: input.signal, durationSec };
  // the mix and its metadata (title, chapters) in, one encoding out
  const encode = (codec: readonly string[], out: string) =>
    runFfmpeg(
      input.tools,
      ["-i", wavPath, "-i", metadataPath, "-map", "0:a", "-map_metadata", "1", ...codec, "-b:a", "96k", out],
      run,
    );
  await encode(["-map_chapters", "1", "-c:a", "aac", "-movflags", "+faststart"], m4aPath);
  input.onProgress?.("encoding", 0.5);
  await encode(["-c:a", "libmp3lame"], mp3Path);
  input.onProgress?.("encoding", 1);

  const voiceIds = Object.fromEntries(Object.entries(voices).map(([host, voice]) => [host, voice?.voice_id]));
  const scriptJsonPath = join(input.workDir, "script.json");
  const scriptTxtPath = join(input.workDir, "script.txt");
  await writeFile(
    scriptJsonPath,
    `${JSON.stringify({ title: input.title, language: script.language, format: script.format, duration: durationSec, voices: voiceIds, chapters, lines }, null, 2)}\n`,
  );
  await writeFile(scriptTxtPath, scriptText(input.title, lines, chapters));
  return { m4aPath, mp3Path, scriptJsonPath, scriptTxtPath, durationSec, lines, chapters, voices: voiceIds };
}

/** A chapter per line that opens one, to the next chapter's start. */
function chaptersOf(script: PodcastScript, lines: readonly TimedLine[], durationSec: number): Chapter[] {
  const opened = script.lines.flatMap((line, i) =>
    line.chapter ? [{ title: line.chapter, start: i === 0 ? 0 : (lines[i]?.start ?? 0) }] : [],
  );
  return opened.map((chapter, i) => ({ ...chapter, end: opened[i + 1]?.start ?? durationSec }));
}

/** ffmpeg's metadata file: the title and the chapters (milliseconds), escaped as its format asks. */
function ffMetadata(title: string, chapters: readonly Chapter[]): string {
  const escapeValue = (text: string) => text.replace(/[=;#\\\n]/g, (c) => (c === "\n" ? " " : `\\${c}`));
  const blocks = chapters.map(
    (chapter) =>
      `[CHAPTER]\nTIMEBASE=1/1000\nSTART=${Math.round(chapter.start * 1000)}\nEND=${Math.round(chapter.end * 1000)}\ntitle=${escapeValue(chapter.title)}\n`,
  );
  return `;FFMETADATA1\ntitle=${escapeValue(title)}\n${blocks.join("")}`;
}

/** The script as people read it: a timestamp and the speaker on every line, chapters as headings. */
function scriptText(title: string, lines: readonly TimedLine[], chapters: readonly Chapter[]): string {
  const out = [title, ""];
  for (const line of lines) {
    const chapter = chapters.find((c) => c.start === line.start || (c.start === 0 && line.start === 0));
    if (chapter && !out.includes(`## ${chapter.title}`)) out.push(`## ${chapter.title}`, "");
    out.push(`[${clock(line.start)}] ${line.speaker}: ${line.text}`);
  }
  return `${out.join("\n")}\n`;
}

function clock(sec: number): string {
  const minutes = Math.floor(sec / 60);
  return `${String(minutes).padStart(2, "0")}:${(sec - minutes * 60).toFixed(1).padStart(4, "0")}`;
}

const round = (sec: number) => Math.round(sec * 1000) / 1000;
