/**
 * Audio overviews end to end with real espeak-ng and ffmpeg, listened to: a deep dive has two voices a
 * pitch tracker tells apart, the files play (ffprobe: AAC and MP3, the chapters in the M4A), the brief
 * stays under two minutes, the script keeps every Vietnamese diacritic, and a chat model's script is
 * checked before it is spoken.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { llmConfigFromEnv } from "../../inference-node/content/llm.ts";
import { podcastVoices, renderPodcast } from "../../inference-node/content/podcast/render.ts";
import {
  extractivePodcastScript,
  llmPodcastScript,
  type PodcastRequest,
} from "../../inference-node/content/podcast/script.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { medianPitch } from "./audio-pitch.ts";
import { ENGLISH_NOTE, probe, UNTITLED_NOTE_EN, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

let root: string;
let chat: FakeServer;
let chatAnswer = "";
const signal = new AbortController().signal;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-podcast-"));
  chat = await startServer((req, res) => {
    if (req.path !== "/v1/chat/completions") return sendJson(res, 404, {});
    sendJson(res, 200, { choices: [{ index: 0, message: { role: "assistant", content: chatAnswer } }] });
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await chat.close();
});

async function render(request: PodcastRequest, asked: { voice_id?: string; voice_id_2?: string } = {}) {
  const script = extractivePodcastScript(request);
  const voices = podcastVoices(request.language, asked, request.format === "deep_dive");
  const workDir = await mkdtemp(join(root, `${request.format}-`));
  const audio = await renderPodcast({
    title: request.note.title,
    script,
    voices,
    synthesizer: new EspeakSynthesizer(),
    tools: { ffmpeg: "ffmpeg" },
    workDir,
    signal,
  });
  return { script, audio, workDir };
}

function chaptersOf(path: string): { title: string; start: number }[] {
  const out = execFileSync("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path]).toString(
    "utf8",
  );
  const chapters = (JSON.parse(out) as { chapters: { start_time: string; tags?: { title?: string } }[] })
    .chapters;
  return chapters.map((c) => ({ title: c.tags?.title ?? "", start: Number(c.start_time) }));
}

describe("audio overview: deep dive", () => {
  it("is two hosts in two voices, with chapters, as M4A and MP3 and a timed script", async () => {
    const { script, audio } = await render({
      note: ENGLISH_NOTE,
      language: "en",
      format: "deep_dive",
      length: "short",
    });
    expect(new Set(script.lines.map((l) => l.host))).toEqual(new Set(["A", "B"]));
    expect(audio.voices).toEqual({ A: "en-female", B: "en-male" });

    const m4a = probe(audio.m4aPath);
    // one AAC track (the chapters ride in the MP4's own chapter track beside it)
    expect(m4a.streams.filter((s) => s.codec_type === "audio").map((s) => s.codec_name)).toEqual(["aac"]);
    expect(Math.abs(m4a.duration - audio.durationSec)).toBeLessThan(0.2);
    expect(probe(audio.mp3Path).streams.map((s) => s.codec_name)).toEqual(["mp3"]);
    const chapters = chaptersOf(audio.m4aPath);
    expect(chapters.map((c) => c.title)).toEqual(audio.chapters.map((c) => c.title));
    expect(chapters[0]).toMatchObject({ title: "Introduction", start: 0 });
    expect(chapters.at(-1)?.title).toBe("Recap");
    expect(chapters.length).toBeGreaterThanOrEqual(5); // intro, three points, recap

    // heard, not only labelled: host A's lines are pitched well above host B's
    const hostA = audio.lines.filter((l) => l.host === "A");
    const hostB = audio.lines.filter((l) => l.host === "B");
    const pitchA = medianPitch(audio.m4aPath, hostA[0]!.start, hostA[0]!.end);
    const pitchB = medianPitch(audio.m4aPath, hostB[0]!.start, hostB[0]!.end);
    expect(pitchA).toBeGreaterThan(pitchB * 1.3);

    // every line timed, in order, inside the audio; the script files say who speaks when
    for (const [i, line] of audio.lines.entries()) {
      expect(line.end).toBeGreaterThan(line.start);
      if (i > 0) expect(line.start).toBeGreaterThan(audio.lines[i - 1]!.end);
    }
    expect(audio.lines.at(-1)!.end).toBeLessThanOrEqual(audio.durationSec);
    const json = JSON.parse(await readFile(audio.scriptJsonPath, "utf8")) as {
      lines: unknown[];
      chapters: unknown[];
    };
    expect(json.lines).toHaveLength(audio.lines.length);
    const txt = await readFile(audio.scriptTxtPath, "utf8");
    expect(txt).toMatch(/^\[00:00\.0\] Emma: Welcome to the deep dive\./m);
    expect(txt).toContain("## Recap");
  });

  it("says what a note without a title is about, not its opening cut short", () => {
    const cut = UNTITLED_NOTE_EN;
    const opening = (note: typeof ENGLISH_NOTE, format: "deep_dive" | "brief") =>
      extractivePodcastScript({ note, language: "en", format, length: "short" }).lines[0]?.text;
    expect(opening(cut, "deep_dive")).toBe(
      "Welcome to the deep dive. Today we are looking at photosynthesis.",
    );
    expect(opening(cut, "brief")).toBe("Here is a brief overview of photosynthesis.");
    // A title of its own is said as it is.
    expect(opening({ ...cut, title: "How plants eat" }, "deep_dive")).toBe(
      "Welcome to the deep dive. Today we are looking at How plants eat.",
    );
    const vi = extractivePodcastScript({
      note: { ...VIETNAMESE_NOTE, title: "" },
      language: "vi",
      format: "brief",
      length: "short",
    });
    expect(vi.lines[0]?.text).not.toContain("Giới thiệu");
  });

  it("grows with the length asked and refuses voices that cannot host it", async () => {
    const short = extractivePodcastScript({
      note: ENGLISH_NOTE,
      language: "en",
      format: "deep_dive",
      length: "short",
    });
    const long = extractivePodcastScript({
      note: ENGLISH_NOTE,
      language: "en",
      format: "deep_dive",
      length: "long",
    });
    expect(long.lines.length).toBeGreaterThan(short.lines.length);
    expect(() => podcastVoices("vi", { voice_id: "en-male" }, true)).toThrow(/speaks en/);
    expect(() => podcastVoices("en", { voice_id: "en-male", voice_id_2: "en-male" }, true)).toThrow(
      /same voice/,
    );
    expect(() => podcastVoices("en", { voice_id: "nobody" }, false)).toThrow(/unknown voice_id/);
    expect(podcastVoices("en", { voice_id: "en-gb-male" }, true)).toMatchObject({
      A: { voice_id: "en-gb-male" },
      B: { gender: "female", language: "en" },
    });
  });
});

describe("audio overview: brief", () => {
  it("is one voice under two minutes, keeping the note's Vietnamese exact", async () => {
    const { script, audio } = await render({
      note: VIETNAMESE_NOTE,
      language: "vi",
      format: "brief",
      length: "long",
    });
    expect(new Set(script.lines.map((l) => l.host))).toEqual(new Set(["A"]));
    expect(audio.voices).toEqual({ A: "vi-female" });
    expect(audio.durationSec).toBeLessThan(120);
    expect(probe(audio.m4aPath).duration).toBeLessThan(120);
    const txt = await readFile(audio.scriptTxtPath, "utf8");
    expect(txt).toContain("Đồng bằng sông Cửu Long là vựa lúa lớn nhất Việt Nam.");
    expect(txt).toContain("Cảm ơn các bạn đã lắng nghe.");
  });

  it("refuses a note with too little to say", () => {
    const note = { ...ENGLISH_NOTE, content: "Too short." };
    expect(() => extractivePodcastScript({ note, language: "en", format: "brief", length: "short" })).toThrow(
      expect.objectContaining({ code: "note_too_short" }),
    );
  });
});

describe("audio overview from a chat model", () => {
  const config = () => llmConfigFromEnv({ VOXEDGE_LLM_URL: chat.url, VOXEDGE_LLM_MODEL: "local" })!;

  it("speaks the model's two-host script, its chapters kept", async () => {
    chatAnswer = JSON.stringify({
      lines: [
        { host: "A", text: "Welcome. Today, the Mekong.", chapter: "Welcome" },
        { host: "B", text: "It flows through six countries.", chapter: "Geography" },
        { host: "A", text: "Thanks for listening." },
      ],
    });
    const request: PodcastRequest = {
      note: ENGLISH_NOTE,
      language: "en",
      format: "deep_dive",
      length: "short",
    };
    const script = await llmPodcastScript(request, config(), signal);
    expect(script.lines.map((l) => [l.host, l.chapter ?? null])).toEqual([
      ["A", "Welcome"],
      ["B", "Geography"],
      ["A", null],
    ]);
    const prompt = JSON.stringify(chat.requests.at(-1)?.body);
    expect(prompt).toContain("two hosts");
    expect(prompt).toContain(ENGLISH_NOTE.title);
  });

  it("refuses a script of the wrong shape with llm_failed", async () => {
    const request: PodcastRequest = { note: ENGLISH_NOTE, language: "en", format: "brief", length: "short" };
    chatAnswer = JSON.stringify({
      lines: [
        { host: "A", text: "Hi." },
        { host: "B", text: "Hello." },
      ],
    });
    await expect(llmPodcastScript(request, config(), signal)).rejects.toMatchObject({ code: "llm_failed" });
    chatAnswer = "no json here";
    await expect(llmPodcastScript(request, config(), signal)).rejects.toMatchObject({ code: "llm_failed" });
  });
});
