import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseGift } from "gift-pegjs";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type components, unwrap } from "../../client/index.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";
import { sidecarCues } from "../node/caption-sidecar-helpers.ts";
import { ENGLISH_NOTE, pdfPages, pdfText, probe, VIETNAMESE_NOTE } from "../node/content-helpers.ts";

/**
 * Content generation through the whole platform: wrangler dev + inference node processes that render
 * with real espeak-ng and ffmpeg; a note (typed, or made from a transcription) becomes a narrated
 * short, an audio-only short, a quiz video and a deck with its PDF, by the spec's calls alone.
 */

let stack: LocalPlatform;
let dir: string;
let node: ChildProcess;

type Poll = components["schemas"]["CreateTaskResult"];
type CreateFields = Record<string, string> & { note_id: string };

async function createNote(body: components["schemas"]["CreateNoteRequest"]): Promise<string> {
  const { data, response } = await stack.client.POST("/v1/notes", { body });
  expect(response.status).toBe(201);
  return data!.note_id;
}

/** The create forms are application/x-www-form-urlencoded (the spec's): the client encodes the fields. */
async function create(
  path: "shorts" | "quiz-video" | "slide" | "quiz" | "study-guide" | "flashcards" | "mindmap" | "podcast",
  fields: CreateFields,
): Promise<string> {
  const accepted = await unwrap(
    stack.client.POST(`/v2/create/${path}`, {
      // each form's schema differs; the route validates the fields
      body: fields as never,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
  );
  expect(accepted.status).toBe("PROCESSING");
  return accepted.data.task_id;
}

/** The outputs of a finished task; fails the test with the task's answer unless it succeeded. */
function succeeded(result: Poll) {
  if (result.status !== "SUCCESS") throw new Error(`task did not succeed: ${JSON.stringify(result)}`);
  return result.data;
}

const poll = (taskId: string): Promise<Poll> =>
  unwrap(stack.client.GET("/v1/create/tasks/{task_id}/result", { params: { path: { task_id: taskId } } }));

/** Polls (as the spec asks, not several times a second) until SUCCESS or FAILURE. */
async function settle(taskId: string, timeoutMs = 150_000, seen: Poll[] = []): Promise<Poll> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await poll(taskId);
    seen.push(status);
    if (status.status === "SUCCESS" || status.status === "FAILURE") return status;
    if (Date.now() > deadline) throw new Error(`${taskId} still ${status.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Downloads a result link (signed, outside the API: no key, no client) into the test folder. */
async function download(url: string, name: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  const path = join(dir, name);
  writeFileSync(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-content-e2e-"));
  await mkdir(join(dir, "node-tmp"));
  stack = await LocalPlatform.start({ allowlist: [], vars: { LEASE_TTL_SEC: "4" } });
  // The first node's temporary folder is watched: it builds the catalog previews there at start.
  node = await stack.startNode({ env: { TMPDIR: join(dir, "node-tmp") } });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("content generation on the local stack", () => {
  it("a node stopped while it builds the catalog previews removes their temporary folders", async () => {
    const previewFolders = () =>
      readdirSync(join(dir, "node-tmp")).filter((name) => name.startsWith("voxedge-previews-"));
    for (let i = 0; i < 600 && previewFolders().length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(previewFolders().length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => node.once("exit", resolve));
    node.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(previewFolders()).toEqual([]);
    // the next node finds the previews missing and publishes them (checked below)
    node = await stack.startNode();
  }, 120_000);

  it("renders a narrated vertical short whose link serves Range, reporting steps on the way", async () => {
    const noteId = await createNote({ title: ENGLISH_NOTE.title, content: ENGLISH_NOTE.content });
    const taskId = await create("shorts", { note_id: noteId, voice_id: "en-female", clip_duration: "10" });
    const seen: Poll[] = [];
    const done = succeeded(await settle(taskId, 150_000, seen));
    expect(done).toMatchObject({ note_id: noteId, title: ENGLISH_NOTE.title, type: "shorts" });
    const progress = seen.flatMap((s) => (s.status === "PROCESSING" ? [s.progress ?? 0] : []));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const url = done.video_url as string;
    const part = await fetch(url, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(100);
    const info = probe(await download(url, "short.mp4"));
    const video = info.streams.find((s) => s.codec_type === "video");
    expect(video).toMatchObject({ codec_name: "h264", width: 1080, height: 1920 });
    expect(info.streams.some((s) => s.codec_type === "audio" && s.codec_name === "aac")).toBe(true);
    expect(info.duration).toBeLessThanOrEqual(10.05);
    // Its captions beside it, as the node uploaded them: SRT and VTT that ffmpeg reads, within the video.
    const files = done.files ?? [];
    expect(files.map((f) => [f.role, f.content_type])).toEqual([
      ["video", "video/mp4"],
      ["srt", "application/x-subrip"],
      ["vtt", "text/vtt"],
    ]);
    const cues = sidecarCues(await download(files[2]?.url ?? "", "short.vtt"));
    expect(cues.length).toBeGreaterThan(2);
    expect(cues.at(-1)!.end).toBeLessThanOrEqual(info.duration + 0.01);
  }, 200_000);

  it("makes an audio-only short from a Vietnamese note, and a deck with its PDF", async () => {
    const noteId = await createNote({ content: VIETNAMESE_NOTE.content });
    const audio = succeeded(
      await settle(
        await create("shorts", {
          note_id: noteId,
          voice_id: "vi-female",
          clip_duration: "8",
          is_audio_only: "true",
        }),
      ),
    );
    expect(audio).not.toHaveProperty("video_url");
    const sound = probe(await download(audio.audio_url as string, "short.m4a"));
    expect(sound.streams.map((s) => s.codec_type)).toEqual(["audio"]);

    const deck = succeeded(
      await settle(
        await create("slide", { note_id: noteId, template_id: "slide-forest", slide_count_range: "4-6" }),
      ),
    );
    const pages = pdfPages(await download(deck.slide_pdf_url as string, "deck.pdf"));
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(pages).toBeLessThanOrEqual(6);
    expect(deck.slide_count).toBe(pages);
    const pptx = await JSZip.loadAsync(readFileSync(await download(deck.slide_url as string, "deck.pptx")));
    expect(Object.keys(pptx.files).filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))).toHaveLength(
      pages,
    );
    expect(await pptx.file("ppt/slides/slide2.xml")?.async("string")).toMatch(/Mê Kông|sông/i);
  }, 250_000);

  it("turns a finished transcription into a note and the note into a quiz video", async () => {
    const wav = join(dir, "speech.wav");
    writeWav(
      wav,
      await speechPcm("The river feeds millions of people. Rice grows in the delta every season."),
    );
    const form = new FormData();
    form.append("file", new Blob([readFileSync(wav)], { type: "audio/wav" }), "speech.wav");
    form.append("language", "en");
    // multipart: the schema types the form as an object, the client sends a FormData as it is
    const { task_id } = await unwrap(stack.client.POST("/transcribe/upload", { body: form as never }));
    expect((await stack.settle(task_id)).status).toBe("done");
    const fromTranscript = await stack.client.POST("/v1/notes", { body: { transcription_task_id: task_id } });
    expect(fromTranscript.response.status).toBe(201);
    expect(fromTranscript.data).toMatchObject({ source_task_id: task_id, language: "en" });

    const quizNote = await createNote({ content: ENGLISH_NOTE.content });
    const quiz = succeeded(
      await settle(
        await create("quiz-video", { note_id: quizNote, voice_id: "en-male", template_id: "quiz-neon" }),
        240_000,
      ),
    );
    const info = probe(await download(quiz.video_url as string, "quiz.mp4"));
    expect(info.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 1080, height: 1920 });
  }, 300_000);

  it("makes flashcards and a mind map of a Vietnamese note, every file linked and opened", async () => {
    const noteId = await createNote({ title: VIETNAMESE_NOTE.title, content: VIETNAMESE_NOTE.content });
    const cards = succeeded(await settle(await create("flashcards", { note_id: noteId, count: "5" })));
    expect(cards).toMatchObject({ type: "flashcards", language: "vi", difficulty: "medium", card_count: 5 });
    const cardFiles = cards.files ?? [];
    expect(cardFiles.map((file) => file.role)).toEqual(["json", "csv", "apkg"]);
    const set = (await (await fetch(cardFiles[0]!.url)).json()) as { cards: { back: string }[] };
    expect(set.cards).toEqual(cards.cards);
    const apkg = await JSZip.loadAsync(readFileSync(await download(cardFiles[2]!.url, "cards.apkg")));
    expect(Object.keys(apkg.files).sort()).toEqual(["collection.anki2", "media"]);

    const map = succeeded(await settle(await create("mindmap", { note_id: noteId })));
    expect(map).toMatchObject({
      type: "mindmap",
      language: "vi",
      source: "outline",
      root: { label: "Sông Mê Kông" },
    });
    const mapFiles = map.files ?? [];
    expect(mapFiles.map((file) => file.role)).toEqual(["json", "opml", "markdown", "svg", "png"]);
    const markdown = await fetch(mapFiles[2]!.url);
    expect(markdown.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await markdown.text()).toContain("# Sông Mê Kông");
    const svg = await fetch(mapFiles[3]!.url);
    expect(svg.headers.get("content-security-policy")).toContain("sandbox");
    const png = probe(await download(mapFiles[4]!.url, "mindmap.png")).streams[0];
    expect(png?.codec_name).toBe("png");
    expect(png?.width).toBeGreaterThan(300);
  }, 200_000);

  it("finishes a render on another node when its node is killed mid-render", async () => {
    const noteId = await createNote({ content: ENGLISH_NOTE.content });
    const taskId = await create("shorts", { note_id: noteId, voice_id: "en-male", clip_duration: "20" });
    for (let i = 0; i < 600; i++) {
      const status = await poll(taskId);
      if (status.status === "PROCESSING" && (status.progress ?? 0) > 5) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    node.kill("SIGKILL");
    node = await stack.startNode();
    succeeded(await settle(taskId, 240_000));
  }, 300_000);

  it("publishes the catalog previews a content node rendered", async () => {
    const { voices } = await unwrap(stack.client.GET("/v1/voices"));
    let response: Response | null = null;
    for (let i = 0; i < 120 && response?.status !== 200; i++) {
      response = await fetch(voices[0]!.sample_url);
      if (response.status !== 200) await new Promise((r) => setTimeout(r, 500));
    }
    expect(response?.status).toBe(200);
    expect(response?.headers.get("content-type")).toBe("audio/mpeg");
  }, 90_000);

  it("makes a quiz and a study guide from a Vietnamese note, whose files download and read back", async () => {
    const noteId = await createNote({ title: VIETNAMESE_NOTE.title, content: VIETNAMESE_NOTE.content });
    const quiz = succeeded(
      await settle(await create("quiz", { note_id: noteId, count: "4", difficulty: "hard" })),
    );
    expect(quiz).toMatchObject({ type: "quiz", language: "vi", difficulty: "hard", question_count: 4 });
    const link = (role: string) => quiz.files?.find((f) => f.role === role)?.url ?? "";
    expect(quiz.files?.map((f) => f.role)).toEqual(["json", "moodle_xml", "gift", "pdf"]);
    expect(parseGift(readFileSync(await download(link("gift"), "quiz.gift"), "utf8"))).toHaveLength(4);
    expect(pdfText(await download(link("pdf"), "quiz.pdf"))).toContain(`Đáp án: ${VIETNAMESE_NOTE.title}`);

    const guide = succeeded(await settle(await create("study-guide", { note_id: noteId })));
    expect(guide).toMatchObject({ type: "study_guide", language: "vi", title: VIETNAMESE_NOTE.title });
    const markdown = guide.files?.find((f) => f.role === "markdown")?.url ?? "";
    expect(readFileSync(await download(markdown, "guide.md"), "utf8")).toContain("## Tóm tắt");
  }, 120_000);

  it("renders an audio overview whose M4A plays and whose script lists every line it speaks", async () => {
    const noteId = await createNote({ title: ENGLISH_NOTE.title, content: ENGLISH_NOTE.content });
    const done = succeeded(
      await settle(await create("podcast", { note_id: noteId, format: "brief", length: "short" })),
    );
    expect(done).toMatchObject({ type: "podcast", format: "brief", voices: { A: "en-female" } });
    const sound = probe(await download(done.audio_url as string, "overview.m4a"));
    expect(Math.abs(sound.duration - (done.duration ?? 0))).toBeLessThan(0.3);
    const files = done.files ?? [];
    expect(files.map((file) => file.role)).toEqual(["audio", "audio_mp3", "json", "txt"]);
    const script = JSON.parse(readFileSync(await download(files[2]!.url, "script.json"), "utf8")) as {
      lines: { text: string }[];
    };
    expect(script.lines.length).toBeGreaterThan(2);
    expect(readFileSync(await download(files[3]!.url, "script.txt"), "utf8")).toContain(
      script.lines[1]!.text,
    );
  }, 200_000);
});
