import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrap } from "../../client/index.ts";
import { LANGUAGES } from "../../protocol/languages.ts";
import { buildExchange, synthesize } from "../helpers/dialogue.ts";
import { byLabel } from "../helpers/diarize-sets.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";

/**
 * The OpenAI-compatible endpoints on the whole platform: wrangler dev, a real inference node with the
 * native addon and a synthetic model (its text is noise: shapes and formats are checked, not words),
 * driven by the official OpenAI SDK over loopback.
 *
 * Two behaviours cannot be seen through `wrangler dev`, whose ProxyWorker (a Durable Object) re-issues
 * every request: a client disconnect never reaches the Worker's request.signal, and a body is read
 * before the Worker sees a declared Content-Length. Cancellation on disconnect and the 413 are
 * therefore tested in test/worker/openai-*.test.ts (workerd, the official SDK aborting) and the node's
 * stop in test/node/openai-lease-cancel.test.ts (the real pipeline and addon).
 */

let dir: string;
let stack: LocalPlatform;
let client: OpenAI;
let speechSec: number;

const SPEECH = "Hello from the edge. This sentence is spoken by a synthetic voice for testing.";
const LANGUAGE_NAMES = new Set(Object.values(LANGUAGES).map((name) => name.toLowerCase()));
const LANGUAGE_CODES: Record<string, string> = Object.fromEntries(
  Object.entries(LANGUAGES).map(([code, name]) => [name.toLowerCase(), code]),
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-openai-e2e-"));
  const speech = await speechPcm(SPEECH);
  speechSec = speech.length / 16_000;
  writeWav(join(dir, "speech.wav"), speech);
  stack = await LocalPlatform.start({ allowlist: ["127.0.0.1:1"], vars: { LEASE_TTL_SEC: "5" } });
  await stack.startNode();
  client = new OpenAI({ apiKey: stack.key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

const speechFile = () => toFile(readFileSync(join(dir, "speech.wav")), "speech.wav", { type: "audio/wav" });

/** The newest jobs of the key, to see what an OpenAI call recorded. */
async function history(limit = 1) {
  return (await unwrap(stack.client.GET("/history", { params: { query: { limit } } }))).jobs;
}

describe("OpenAI SDK against the real stack", () => {
  it("answers every response_format in OpenAI's shapes", async () => {
    const json = await client.audio.transcriptions.create({ file: await speechFile(), model: "whisper-1" });
    expect(typeof json.text).toBe("string");

    const text = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "text",
    });
    expect(text.endsWith("\n")).toBe(true);

    const srt = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "srt",
    });
    const srtCues = srt.split("\n\n").filter(Boolean);
    for (const [i, cue] of srtCues.entries()) {
      expect(cue).toMatch(
        new RegExp(`^${i + 1}\\n\\d{2}:\\d{2}:\\d{2},\\d{3} --> \\d{2}:\\d{2}:\\d{2},\\d{3}\\n.+$`, "s"),
      );
    }

    const vtt = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "vtt",
    });
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    for (const cue of vtt.slice("WEBVTT\n\n".length).split("\n\n").filter(Boolean)) {
      expect(cue).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n(<v SPEAKER_\d{2}>)?.+$/s);
    }
    // The same audio decodes the same way: as many cues in srt and vtt.
    expect(vtt.slice(8).split("\n\n").filter(Boolean)).toHaveLength(srtCues.length);
  });

  it("answers verbose_json with scores from the decoder and word timings from token timestamps", async () => {
    const verbose = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
    });
    // OpenAI sends `task` in verbose_json; the SDK's type leaves it out
    expect(verbose).toMatchObject({ task: "transcribe" });
    expect(LANGUAGE_NAMES.has(verbose.language)).toBe(true);
    expect(verbose.duration).toBeGreaterThan(speechSec - 0.5);
    expect(verbose.duration).toBeLessThan(speechSec + 0.5);
    const segments = verbose.segments ?? [];
    expect(segments.length).toBeGreaterThan(0);
    for (const [id, segment] of segments.entries()) {
      expect(segment.id).toBe(id);
      expect(segment.start).toBeLessThanOrEqual(segment.end);
      expect(segment.tokens.length).toBeGreaterThan(0);
      for (const token of segment.tokens) expect(Number.isInteger(token)).toBe(true);
      expect(segment.avg_logprob).toBeLessThan(0);
      expect(segment.no_speech_prob).toBeGreaterThanOrEqual(0);
      expect(segment.compression_ratio).toBeGreaterThan(0);
      expect(segment.seek).toBe(0);
    }
    const words = verbose.words ?? [];
    expect(words.length).toBeGreaterThan(0);
    for (const [i, word] of words.entries()) {
      expect(word.word).toMatch(/\S/);
      expect(word.start).toBeLessThanOrEqual(word.end);
      expect(word.end).toBeLessThanOrEqual(verbose.duration + 0.001);
      if (i > 0) expect(word.start).toBeGreaterThanOrEqual(words[i - 1]!.start);
    }
    const [task] = await history();
    expect(task?.params).toMatchObject({ task: "transcribe", word_timestamps: true, language: null });
  });

  it("answers diarized_json from the real node's diarizer, and the task exports the same body", async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ file: await speechFile(), model: "whisper-1", response_format: "diarized_json" })
      .withResponse();
    // the SDK types a non-streaming create as Transcription whatever the format
    const diarized = data as unknown as OpenAI.Audio.TranscriptionDiarized;
    expect(diarized.task).toBe("transcribe");
    expect(diarized.usage).toEqual({ type: "duration", seconds: Math.ceil(diarized.duration) });
    expect(diarized.segments.length).toBeGreaterThan(0);
    for (const [index, segment] of diarized.segments.entries()) {
      expect(segment).toMatchObject({ type: "transcript.text.segment", id: `seg_${index}` });
      expect(segment.speaker).toMatch(/^[A-Z]+$/);
    }
    expect(diarized.segments[0]?.speaker).toBe("A");
    const taskId = response.headers.get("x-voxedge-task-id");
    const exported = await fetch(`${stack.url}/transcribe/${taskId}/subtitles?format=diarized_json`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
    expect(exported.status).toBe(200);
    const { _request_id: _, ...body } = diarized as typeof diarized & { _request_id?: string };
    expect(await exported.json()).toEqual(body);
  });

  it("names the speaker whose reference clip is given, and refuses a clip shorter than 2 s", async () => {
    // a male voice speaks three turns, a female voice two; only the male voice is enrolled, with a
    // reference made of sentences he never says in the call
    const [agent, other] = [byLabel("us-m3"), byLabel("us-f3")];
    const lines = [
      "Can we move the meeting to ten?",
      "Ten o'clock works fine for me.",
      "The train was late again today.",
    ];
    const call = await buildExchange(
      [agent, other, agent, other, agent].map((voice, i) => ({
        voice,
        text: lines[i % 3] ?? "",
        pause: 0.6,
      })),
    );
    writeWav(join(dir, "call.wav"), call.pcm);
    const reference = Float32Array.from(
      [
        ...(await synthesize("My garden is full of yellow roses this summer.", agent)),
        ...(await synthesize("The library closes early on public holidays.", agent)),
      ],
      (x) => x * agent.gain,
    );
    const dataUrl = (pcm: Float32Array, name: string) => {
      writeWav(join(dir, name), pcm);
      return `data:audio/wav;base64,${readFileSync(join(dir, name)).toString("base64")}`;
    };
    const ask = async (clip: string) =>
      client.audio.transcriptions.create({
        file: await toFile(readFileSync(join(dir, "call.wav")), "call.wav", { type: "audio/wav" }),
        model: "gpt-4o-transcribe-diarize",
        response_format: "diarized_json",
        known_speaker_names: ["agent"],
        known_speaker_references: [clip],
      });
    const diarized = (await ask(
      dataUrl(reference, "agent.wav"),
    )) as unknown as OpenAI.Audio.TranscriptionDiarized;
    const speakers = diarized.segments.map((segment) => segment.speaker);
    expect(speakers).toContain("agent");
    for (const speaker of speakers) expect(speaker).toMatch(/^(agent|[A-Z]+)$/);

    const short = await ask(dataUrl(reference.subarray(0, 16_000), "short.wav")).catch((e) => e);
    expect(short).toBeInstanceOf(OpenAI.BadRequestError);
    expect(short.param).toBe("known_speaker_references");
    expect(short.message).toMatch(/known_speaker_references\[0\] is 1\.0 s long/);
  });

  it("auto-detects the language when none is given, and keeps a given one", async () => {
    const given = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      language: "de",
      response_format: "verbose_json",
    });
    expect(given.language).toBe("german");
    expect((await history())[0]?.params?.language).toBe("de");
    const auto = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "verbose_json",
    });
    expect(LANGUAGE_NAMES.has(auto.language)).toBe(true);
    expect((await history())[0]?.params?.language).toBeNull();
  });

  it("restricts detection to languages[], and lists the decoder's tokens with include[]=logprobs", async () => {
    const free = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "verbose_json",
    });
    // two languages other than the one found freely: the answer must still be one of them
    const among = ["fr", "de", "ja"].filter((code) => LANGUAGE_CODES[free.language] !== code).slice(0, 2);
    const held = await client.audio.transcriptions.create({
      file: await speechFile(),
      model: "gpt-transcribe",
      languages: among,
      include: ["logprobs"],
    } as unknown as Parameters<typeof client.audio.transcriptions.create>[0] & { stream?: false });
    const body = held as unknown as {
      text: string;
      languages: { code: string }[];
      logprobs: { token: string; logprob: number; bytes: number[] }[];
    };
    expect(among).toContain(body.languages[0]?.code);
    expect((await history())[0]?.params).toMatchObject({
      language: null,
      detect_languages: among,
      logprobs: true,
    });
    expect(body.logprobs.length).toBeGreaterThan(0);
    for (const token of body.logprobs) expect(token.logprob).toBeLessThanOrEqual(0);
    // the tokens are the decoder's, byte for byte: together they hold the text's words
    const decoded = new TextDecoder().decode(new Uint8Array(body.logprobs.flatMap((t) => t.bytes)));
    expect(decoded.trim().length).toBeGreaterThan(0);
  });

  it("translates speech to English", async () => {
    const verbose = await client.audio.translations.create({
      file: await speechFile(),
      model: "whisper-1",
      response_format: "verbose_json",
    });
    expect(verbose).toMatchObject({ task: "translate", language: "english" });
    expect((await history())[0]?.params).toMatchObject({ task: "translate" });
  });

  it("streams a long file's transcript window by window through the real node (stream=true)", async () => {
    const speech = await speechPcm(SPEECH);
    const pause = new Float32Array(16_000);
    const parts: Float32Array[] = [];
    for (let sec = 0; sec < 75; sec += speech.length / 16_000 + 1) parts.push(speech, pause);
    const long = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      long.set(part, at);
      at += part.length;
    }
    writeWav(join(dir, "long.wav"), long);
    const file = await toFile(readFileSync(join(dir, "long.wav")), "long.wav", { type: "audio/wav" });
    const started = performance.now();
    const stream = await client.audio.transcriptions.create({
      file,
      model: "gpt-4o-transcribe",
      stream: true,
      include: ["logprobs"],
    });
    type Seen = {
      type: string;
      at: number;
      text?: string;
      usage?: { seconds: number };
      logprobs?: { logprob: number }[];
    };
    const events: Seen[] = [];
    for await (const event of stream) {
      events.push({ ...(event as unknown as Omit<Seen, "at">), at: performance.now() - started });
    }
    const deltas = events.filter((e) => e.type === "transcript.text.delta");
    const done = events.at(-1);
    expect(done?.type).toBe("transcript.text.done");
    // several windows, each reported as it was decoded: deltas come well before the end
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas[0]!.at).toBeLessThan(done!.at);
    // each delta carries the decoder's tokens behind it (include[]=logprobs)
    expect(deltas.every((delta) => (delta.logprobs?.length ?? 0) > 0)).toBe(true);
    expect(done?.usage?.seconds).toBe(Math.ceil(long.length / 16_000));
    expect(typeof done?.text).toBe("string");
  });

  it("raises AuthenticationError for a wrong key", async () => {
    const wrong = new OpenAI({ apiKey: "vx_wrong", baseURL: `${stack.url}/v1`, maxRetries: 0 });
    const error = await wrong.audio.transcriptions
      .create({ file: await speechFile(), model: "whisper-1" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.error).toMatchObject({ code: "invalid_api_key", type: "invalid_request_error" });
  });

  it("fails a file that is not audio with a 400 the SDK does not retry", async () => {
    const junk = await toFile(Buffer.from("ID3 not really an mp3 ".repeat(300)), "junk.mp3", {
      type: "audio/mpeg",
    });
    const retrying = new OpenAI({ apiKey: stack.key, baseURL: `${stack.url}/v1`, maxRetries: 2 });
    const error = await retrying.audio.transcriptions
      .create({ file: junk, model: "whisper-1" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: "file", code: "invalid_file" });
    expect(error.message).toMatch(/cannot decode the media as audio/);
    expect(error.headers.get("x-should-retry")).toBe("false");
    const failed = await history(5);
    expect(failed.filter((job) => String(job.params?.object_key).endsWith("junk.mp3"))).toHaveLength(1);
  });

  it("lists models with the whisper-1 alias", async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["whisper-base", "whisper-1"]);
  });
});
