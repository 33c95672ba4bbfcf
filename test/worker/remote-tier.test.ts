import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { WORKERS_AI_WHISPER_MODEL } from "../../protocol/model-registry.ts";
import { app } from "../../worker/app.ts";
import worker from "../../worker/index.ts";
import { remoteBackoffMs } from "../../worker/remote/edge-executor.ts";
import { remoteStatusFailure } from "../../worker/remote/remote-failure.ts";
import { readPcmWav, splitPcmWav, wavFile } from "../../worker/remote/wav-chunks.ts";
import { WORKERS_AI_PIECE_SEC } from "../../worker/remote/workers-ai-whisper.ts";
import { bearer, createKey, readTranscription, resetDispatcher } from "./helpers.ts";
import { fixtureUrl } from "./ingest-helpers.ts";

/**
 * The registry's `http` tier, served by the Worker itself with zero nodes: Workers AI through a fake
 * AI binding that holds the model to its documented input and answers its documented output, and an
 * OpenAI-compatible endpoint on the fixture server (real HTTP).
 */

/** The fields @cf/openai/whisper-large-v3-turbo documents for its input. */
const DOCUMENTED_INPUT = new Set([
  "audio",
  "task",
  "language",
  "vad_filter",
  "initial_prompt",
  "prefix",
  "beam_size",
  "condition_on_previous_text",
  "no_speech_threshold",
  "compression_ratio_threshold",
  "log_prob_threshold",
  "hallucination_silence_threshold",
]);

interface FakeCall {
  model: string;
  input: Record<string, unknown>;
  wav: { sampleRate: number; seconds: number } | null;
}

/**
 * A fake `AI` binding: throws on an undocumented field, a non-string or non-base64 `audio`, or another
 * model; answers one segment per 60 s of the audio it got (text `s<n>`), in the documented shape.
 */
function fakeAi() {
  const calls: FakeCall[] = [];
  const binding = {
    async run(model: string, input: Record<string, unknown>) {
      if (model !== WORKERS_AI_WHISPER_MODEL) throw new Error(`unknown model ${model}`);
      for (const field of Object.keys(input)) {
        if (!DOCUMENTED_INPUT.has(field)) throw new Error(`undocumented input field ${field}`);
      }
      if (typeof input.audio !== "string" || !/^[A-Za-z0-9+/]+=*$/.test(input.audio)) {
        throw new Error("audio must be a base64 string");
      }
      const bytes = Uint8Array.from(atob(input.audio), (c) => c.charCodeAt(0));
      const pcm = readPcmWav(bytes);
      const seconds = pcm ? pcm.data.byteLength / pcm.format.blockAlign / pcm.format.sampleRate : 3;
      calls.push({ model, input, wav: pcm ? { sampleRate: pcm.format.sampleRate, seconds } : null });
      const segments = [];
      for (let start = 0, n = 0; start < seconds; start += 60, n++) {
        const end = Math.min(seconds, start + 60);
        segments.push({
          start,
          end,
          text: ` s${n}`,
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.1,
          no_speech_prob: 0.01,
          words: [{ word: `s${n}`, start, end }],
        });
      }
      return {
        transcription_info: {
          language: "en",
          language_probability: 0.98,
          duration: seconds,
          duration_after_vad: seconds,
        },
        text: segments.map((s) => s.text).join(""),
        word_count: segments.length,
        segments,
        vtt: "WEBVTT\n\n",
      };
    },
  };
  return { binding, calls };
}

/** 8 kHz mono 8-bit PCM WAV of `seconds` (small, so a long file stays cheap). */
function pcmWav(seconds: number): Uint8Array {
  const format = { channels: 1, sampleRate: 8000, bitsPerSample: 8, blockAlign: 1 };
  return wavFile(format, new Uint8Array(seconds * 8000).fill(128));
}

function workersAiEnv(ai: unknown) {
  const registry = {
    default_model: "cf-whisper",
    models: [{ id: "cf-whisper", label: "Workers AI whisper", kind: "http", provider: "workers_ai" }],
  };
  return { ...env, MODEL_REGISTRY: JSON.stringify(registry), AI: ai } as Env;
}

/** A caller's view of a remote failure names no host, status or word of the tier's answer. */
function expectNothingOfTheTier(text: string | null | undefined): void {
  expect(text ?? "").not.toMatch(/127\.0\.0\.1|localhost|HTTP \d{3}|fixture says/);
}

function openAiEnv(endpointPath: string, extra: Record<string, string> = {}) {
  const registry = {
    default_model: "remote-whisper",
    models: [
      {
        id: "remote-whisper",
        label: "Remote whisper",
        kind: "http",
        endpoint: fixtureUrl(endpointPath),
        remote_model: "whisper-1",
        api_key_env: "REMOTE_ASR_KEY",
      },
    ],
  };
  return { ...env, MODEL_REGISTRY: JSON.stringify(registry), REMOTE_ASR_KEY: "fixture-key", ...extra } as Env;
}

async function send(testEnv: Env, path: string, init: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(new Request(`http://voxedge.test${path}`, init), testEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Delivers a task's Queue message to the Worker's queue handler under `testEnv`, as the Queue would. */
async function deliverUnder(testEnv: Env, taskId: string) {
  const batch = createMessageBatch("voxedge-tasks", [
    {
      id: `msg-${taskId}`,
      timestamp: new Date(),
      attempts: 1,
      body: { task_id: taskId, kind: "transcribe" },
    },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, testEnv);
  return getQueueResult(batch, ctx);
}

async function uploadJob(testEnv: Env, key: string, file: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([file], name, { type: "audio/wav" }));
  form.append("language", "en");
  const response = await send(testEnv, "/transcribe/upload", {
    method: "POST",
    headers: bearer(key),
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { task_id: string }).task_id;
}

beforeEach(resetDispatcher);

describe("Workers AI tier (fake binding, zero nodes)", { timeout: 30_000 }, () => {
  it("runs an uploaded file job to done through the Queue consumer, with history", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const taskId = await uploadJob(testEnv, key, pcmWav(90), "talk.wav");
    const outcome = await deliverUnder(testEnv, taskId);
    expect(outcome.explicitAcks).toEqual([`msg-${taskId}`]);
    const record = await readTranscription(taskId);
    expect(record?.status, record?.error ?? "").toBe("done");
    expect(record?.progress).toBe(100);
    expect(record?.result?.model).toBe("cf-whisper");
    expect(record?.result?.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [0, 60, "s0"],
      [60, 90, "s1"],
    ]);
    expect(record?.result?.language).toBe("English");
    expect(ai.calls).toHaveLength(1);
    expect(ai.calls[0]?.input).toMatchObject({ task: "transcribe", language: "en", vad_filter: true });
    const history = await send(testEnv, "/history", { headers: bearer(key) });
    expect(JSON.stringify(await history.json())).toContain(taskId);
  });

  it("splits a WAV longer than one call into overlapping pieces and stitches one timeline", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const seconds = WORKERS_AI_PIECE_SEC * 2 + 100;
    const taskId = await uploadJob(testEnv, key, pcmWav(seconds), "long.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.status, record?.error ?? "").toBe("done");
    // Three calls; every one but the first starts 1 s early (the overlap).
    expect(ai.calls.map((c) => c.wav?.seconds)).toEqual([
      WORKERS_AI_PIECE_SEC,
      WORKERS_AI_PIECE_SEC + 1,
      101,
    ]);
    const segments = record?.result?.segments ?? [];
    // One timeline: ordered, no gap between neighbours, no stretch told twice (each piece keeps only the
    // segments whose middle lies in its own span), reaching the end of the file.
    for (const [i, segment] of segments.entries()) {
      const previous = segments[i - 1];
      if (!previous) continue;
      expect(segment.start).toBeGreaterThanOrEqual(previous.start);
      expect(segment.start).toBeLessThanOrEqual(previous.end);
      expect((segment.start + segment.end) / 2).toBeGreaterThan((previous.start + previous.end) / 2);
    }
    expect(segments[0]?.start).toBe(0);
    expect(segments.at(-1)?.end).toBe(seconds);
    expect(record?.result?.duration_sec).toBe(seconds);
  });

  it("serves POST /v1/audio/transcriptions through the binding with no node", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const form = new FormData();
    form.append("file", new File([pcmWav(5)], "clip.wav", { type: "audio/wav" }));
    form.append("model", "whisper-1");
    form.append("response_format", "verbose_json");
    form.append("prompt", "Voxedge");
    const response = await send(testEnv, "/v1/audio/transcriptions", {
      method: "POST",
      headers: bearer(key),
      body: form,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { text: string; segments: { text: string }[] };
    expect(body.text).toBe("s0");
    expect(ai.calls[0]?.input).toMatchObject({ initial_prompt: "Voxedge", vad_filter: true });
  });

  it("refuses a compressed file over one call's size at once: media_too_large, saying how to fix it", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const taskId = await uploadJob(testEnv, key, new Uint8Array(11 * 1024 * 1024).fill(1), "big.mp3");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.status).toBe("failed");
    expect(record?.error_code).toBe("media_too_large");
    expect(record?.error).toContain("16-bit PCM WAV");
    expect(ai.calls).toHaveLength(0);
  });

  it("a binding that throws an input error fails the task media_unreadable, never a crash", async () => {
    const { key } = await createKey();
    const testEnv = workersAiEnv({
      run: async () => {
        throw new Error("AiError: Invalid audio input");
      },
    });
    const taskId = await uploadJob(testEnv, key, pcmWav(2), "x.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", "media_unreadable"]);
  });

  it("/models says the Workers AI entry is ready only with the binding", async () => {
    const { key } = await createKey();
    const withBinding = await send(workersAiEnv(fakeAi().binding), "/models", { headers: bearer(key) });
    const without = await send(workersAiEnv(undefined), "/models", { headers: bearer(key) });
    const ready = async (r: Response) =>
      ((await r.json()) as { models: { ready: boolean }[] }).models[0]?.ready;
    expect(await ready(withBinding)).toBe(true);
    expect(await ready(without)).toBe(false);
  });
});

/** A PCM WAV whose header says what a test wants, true or not, over `dataBytes` of samples. */
function craftedWav(header: {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  blockAlign: number;
  byteRate?: number;
  dataBytes: number;
}): Uint8Array {
  const out = new Uint8Array(44 + header.dataBytes).fill(128);
  const view = new DataView(out.buffer);
  const put = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  };
  put(0, "RIFF");
  view.setUint32(4, 36 + header.dataBytes, true);
  put(8, "WAVE");
  put(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, header.channels, true);
  view.setUint32(24, header.sampleRate, true);
  view.setUint32(28, header.byteRate ?? header.sampleRate * header.blockAlign, true);
  view.setUint16(32, header.blockAlign, true);
  view.setUint16(34, header.bitsPerSample, true);
  put(36, "data");
  view.setUint32(40, header.dataBytes, true);
  return out;
}

describe("Workers AI tier: the splitter trusts no WAV header", { timeout: 60_000 }, () => {
  async function runCrafted(bytes: Uint8Array, extraEnv: Record<string, string> = {}) {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = { ...workersAiEnv(ai.binding), ...extraEnv } as Env;
    const taskId = await uploadJob(testEnv, key, bytes, "crafted.wav");
    await deliverUnder(testEnv, taskId);
    return { record: await readTranscription(taskId), calls: ai.calls.length };
  }

  const refusals: [string, Parameters<typeof craftedWav>[0]][] = [
    // > 10 MiB/s declared: the piece length went negative, each piece held every frame before it
    [
      "a 16 MiB/s data rate",
      { sampleRate: 4_000_000, channels: 1, bitsPerSample: 32, blockAlign: 4, dataBytes: 4096 },
    ],
    // 1 Hz: 48 MiB became ~168 000 sequential calls
    [
      "a 1 Hz sample rate",
      { sampleRate: 1, channels: 1, bitsPerSample: 16, blockAlign: 2, dataBytes: 65_536 },
    ],
    ["no channels", { sampleRate: 16_000, channels: 0, bitsPerSample: 16, blockAlign: 2, dataBytes: 3200 }],
    [
      "nine channels",
      { sampleRate: 16_000, channels: 9, bitsPerSample: 16, blockAlign: 18, dataBytes: 3600 },
    ],
    [
      "a block size that is not channels × bytes",
      { sampleRate: 16_000, channels: 1, bitsPerSample: 16, blockAlign: 3, dataBytes: 3000 },
    ],
    [
      "a byte rate that disagrees",
      { sampleRate: 16_000, channels: 1, bitsPerSample: 16, blockAlign: 2, byteRate: 7, dataBytes: 3200 },
    ],
  ];
  for (const [what, header] of refusals) {
    it(`refuses ${what} before any call: media_unreadable, saying which field`, async () => {
      const { record, calls } = await runCrafted(craftedWav(header));
      expect(record?.status).toBe("failed");
      expect(record?.error_code).toBe("media_unreadable");
      expect(record?.error).toMatch(/WAV header/);
      expect(calls).toBe(0);
    });
  }

  it("fails a WAV longer than MAX_AUDIO_DURATION_SEC with audio_too_long before any call", async () => {
    const { record, calls } = await runCrafted(pcmWav(90), { MAX_AUDIO_DURATION_SEC: "60" });
    expect(record?.status).toBe("failed");
    expect(record?.error_code).toBe("audio_too_long");
    expect(calls).toBe(0);
  });

  it("fails compressed audio whose answer runs past MAX_AUDIO_DURATION_SEC with audio_too_long", async () => {
    // The fake answers 3 s for audio it cannot read as WAV.
    const { record } = await runCrafted(new Uint8Array(2048).fill(7), { MAX_AUDIO_DURATION_SEC: "2" });
    expect(record?.status).toBe("failed");
    expect(record?.error_code).toBe("audio_too_long");
  });

  it("cuts a 48 kHz stereo 24-bit WAV into pieces of at most 10 MiB, at least a second each", () => {
    const header = {
      sampleRate: 48_000,
      channels: 2,
      bitsPerSample: 24,
      blockAlign: 6,
      dataBytes: 48_000 * 6 * 3,
    };
    const wav = readPcmWav(craftedWav(header));
    if (!wav) throw new Error("not read as PCM WAV");
    const pieces = [...splitPcmWav(wav.format, wav.data, 1, 0.5)];
    expect(pieces.map((p) => [p.offsetSec, p.ownedFrom, p.ownedTo])).toEqual([
      [0, 0, 1],
      [0.5, 1, 2],
      [1.5, 2, 3],
    ]);
  });
});

describe("OpenAI-compatible endpoint tier (zero nodes)", { timeout: 30_000 }, () => {
  it("runs a file_url job: fetched by the Worker, sent as verbose_json with model, language and bearer", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions");
    const accepted = await send(testEnv, "/transcribe", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ file_url: fixtureUrl("/audio.mp3"), language: "vi", context: "names" }),
    });
    expect(accepted.status).toBe(200);
    const { task_id: taskId } = (await accepted.json()) as { task_id: string };
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.status, record?.error ?? "").toBe("done");
    expect(record?.result?.text).toBe("Hello there. model=whisper-1 language=vi prompt=names bytes=2048");
    expect(record?.result?.language).toBe("English");
    expect(record?.result?.segments[1]?.start_fmt).toBe("00:01.500");
    expect(record?.result?.duration_sec).toBe(4.5);
  });

  it.each([
    [400, "media_unreadable"],
    [413, "media_too_large"],
    [401, "remote_refused"],
    [404, "remote_refused"],
  ])("an endpoint answering %i fails the task %s at once (permanent)", async (status, code) => {
    const { key } = await createKey();
    const testEnv = openAiEnv(`/openai-status/${status}/audio/transcriptions`);
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", code]);
    expectNothingOfTheTier(record?.error);
  });

  it.each([
    429, 503,
  ])("an endpoint answering %i is retried with backoff, then fails remote_unavailable (retryable) when attempts run out", async (status) => {
    const { key } = await createKey();
    const testEnv = openAiEnv(`/openai-status/${status}/audio/transcriptions`, { MAX_TASK_ATTEMPTS: "1" });
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", "remote_unavailable"]);
    expectNothingOfTheTier(record?.error);
  }, 30_000);

  it.each([
    [503, "remote_unavailable"],
    [401, "remote_refused"],
  ])(
    "the sync route answers an endpoint's %i with 503 (%s), never a 500",
    async (status, code) => {
      const { key } = await createKey();
      const testEnv = openAiEnv(`/openai-status/${status}/audio/transcriptions`, { MAX_TASK_ATTEMPTS: "1" });
      const form = new FormData();
      form.append("file", new File([pcmWav(1)], "a.wav", { type: "audio/wav" }));
      form.append("model", "whisper-1");
      const response = await send(testEnv, "/v1/audio/transcriptions", {
        method: "POST",
        headers: bearer(key),
        body: form,
      });
      expect(response.status, await response.clone().text()).toBe(503);
      const body = (await response.json()) as { error: { message: string } };
      expectNothingOfTheTier(body.error.message);
      const history = (await (await send(testEnv, "/history?limit=1", { headers: bearer(key) })).json()) as {
        jobs: { status: string; error_code: string | null }[];
      };
      expect(history.jobs[0]).toMatchObject({ status: "failed", error_code: code });
    },
    30_000,
  );

  it("a missing bearer secret fails the task remote_refused; the secret's name stays in the log", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions", { REMOTE_ASR_KEY: "" });
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", "remote_refused"]);
    expect(record?.error).not.toContain("REMOTE_ASR_KEY");
  });

  it("an upstream 401 that echoes a key fragment reaches neither the task, history nor the sync answer", async () => {
    const { key } = await createKey();
    // "fixture-key" is the deployment's secret: the fixture's 401 echoes "fix****-key".
    const testEnv = openAiEnv("/openai-status/401/audio/transcriptions", { MAX_TASK_ATTEMPTS: "1" });
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.error_code).toBe("remote_refused");
    const form = new FormData();
    form.append("file", new File([pcmWav(1)], "a.wav", { type: "audio/wav" }));
    form.append("model", "whisper-1");
    const sync = await send(testEnv, "/v1/audio/transcriptions", {
      method: "POST",
      headers: bearer(key),
      body: form,
    });
    const history = await send(testEnv, "/history?limit=5", { headers: bearer(key) });
    for (const seen of [record?.error ?? "", await sync.text(), await history.text()]) {
      expect(seen).not.toMatch(/\*\*\*\*|-key|Incorrect API key/);
      expectNothingOfTheTier(seen);
    }
  }, 30_000);
});

describe("remote tier pieces", () => {
  it("maps statuses: 408/429/5xx transient, other 4xx permanent", () => {
    expect([429, 408, 500, 502, 503].map((s) => remoteStatusFailure(s, "t", "").transient)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 403, 404, 413, 422].map((s) => remoteStatusFailure(s, "t", "").transient)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("backs off ½–1 × a doubling ceiling up to 15 s", () => {
    expect([1, 2, 3, 6].map((a) => remoteBackoffMs(a, () => 1))).toEqual([1000, 2000, 4000, 15_000]);
    expect(remoteBackoffMs(2, () => 0)).toBe(1000);
  });

  it("cuts PCM into pieces whose owned spans tile the file", () => {
    const wav = readPcmWav(pcmWav(25));
    if (!wav) throw new Error("not read as PCM WAV");
    const pieces = [...splitPcmWav(wav.format, wav.data, 10, 1)];
    expect(pieces.map((p) => [p.offsetSec, p.ownedFrom, p.ownedTo])).toEqual([
      [0, 0, 10],
      [9, 10, 20],
      [19, 20, 25],
    ]);
    expect(readPcmWav(pieces[1]?.wav ?? new Uint8Array())?.data.byteLength).toBe(11 * 8000);
    expect(readPcmWav(new TextEncoder().encode("ID3 not a wav"))).toBeNull();
  });
});
