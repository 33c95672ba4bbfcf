import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { remoteTier } from "../../platform/stubs.ts";
import { WORKERS_AI_WHISPER_MODEL } from "../../protocol/model-registry.ts";
import { WORKERS_AI_TRANSLATION_MODEL } from "../../protocol/translate.ts";
import { pcmWavHeader, readWav } from "../../protocol/wav.ts";
import { app } from "../../worker/app.ts";
import worker from "../../worker/index.ts";
import { remoteBackoffMs, runRemoteTasks } from "../../worker/remote/edge-executor.ts";
import { REMOTE_FAILURE_MESSAGES, remoteStatusFailure } from "../../worker/remote/remote-failure.ts";
import { cutPieces, planPieces } from "../../worker/remote/wav-chunks.ts";
import { WORKERS_AI_PIECE_SEC } from "../../worker/remote/workers-ai-whisper.ts";
import { UPSTREAM_KEY_FRAGMENT } from "../helpers/fixture-answers.ts";
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
  const translations: Record<string, unknown>[] = [];
  const binding = {
    async run(model: string, input: Record<string, unknown>) {
      if (model === WORKERS_AI_TRANSLATION_MODEL) {
        translations.push(input);
        return { translated_text: `${String(input.target_lang)}:${String(input.text)}` };
      }
      if (model !== WORKERS_AI_WHISPER_MODEL) throw new Error(`unknown model ${model}`);
      for (const field of Object.keys(input)) {
        if (!DOCUMENTED_INPUT.has(field)) throw new Error(`undocumented input field ${field}`);
      }
      if (typeof input.audio !== "string" || !/^[A-Za-z0-9+/]+=*$/.test(input.audio)) {
        throw new Error("audio must be a base64 string");
      }
      const bytes = Uint8Array.from(atob(input.audio), (c) => c.charCodeAt(0));
      const pcm = readWav(bytes);
      const seconds = pcm.kind === "wav" ? pcm.dataBytes / pcm.format.byteRate : 3;
      calls.push({
        model,
        input,
        wav: pcm.kind === "wav" ? { sampleRate: pcm.format.sampleRate, seconds } : null,
      });
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
  return { binding, calls, translations };
}

/** 8 kHz mono 8-bit PCM WAV of `seconds` (small, so a long file stays cheap). */
function pcmWav(seconds: number): Uint8Array {
  const header = pcmWavHeader({ channels: 1, sampleRate: 8000, bitsPerSample: 8 }, seconds * 8000);
  const out = new Uint8Array(44 + seconds * 8000).fill(128);
  out.set(header);
  return out;
}

/** The fmt fields of a hand-made WAV header, written as given (however inconsistent). */
interface CraftedFormat {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
  byteRate: number;
}

/** A PCM WAV whose 44-byte header says exactly `format`, around `dataBytes` bytes of silence. */
function craftedWav(format: CraftedFormat, dataBytes: number): Uint8Array {
  const out = new Uint8Array(44 + dataBytes).fill(128);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode("RIFF"), 0);
  view.setUint32(4, 36 + dataBytes, true);
  out.set(new TextEncoder().encode("WAVEfmt "), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, format.channels, true);
  view.setUint32(24, format.sampleRate, true);
  view.setUint32(28, format.byteRate, true);
  view.setUint16(32, format.blockAlign, true);
  view.setUint16(34, format.bitsPerSample, true);
  out.set(new TextEncoder().encode("data"), 36);
  view.setUint32(40, dataBytes, true);
  return out;
}

function workersAiEnv(ai: unknown, extra: Record<string, string> = {}) {
  const registry = {
    default_model: "cf-whisper",
    models: [{ id: "cf-whisper", label: "Workers AI whisper", kind: "http", provider: "workers_ai" }],
  };
  return { ...env, MODEL_REGISTRY: JSON.stringify(registry), AI: ai, ...extra } as Env;
}

function openAiEnv(endpointPath: string, extra: Record<string, string> = {}, timestamps = true) {
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
        supports_timestamps: timestamps,
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

/**
 * Delivers a task's Queue message to the Worker's queue handler under `testEnv`, as the Queue would,
 * then runs the executor as the RemoteTier object's alarm does (the object itself sees the deployment's
 * env, not this test's registry).
 */
async function deliverUnder(testEnv: Env, taskId: string) {
  const outcome = await deliverOnly(testEnv, taskId);
  await runRemoteTasks(testEnv);
  return outcome;
}

/** Only the Queue delivery: the consumer's hand-off and wake-up, no transcription. */
async function deliverOnly(testEnv: Env, taskId: string) {
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

async function submitUrlJob(testEnv: Env, key: string, language: string): Promise<string> {
  const response = await send(testEnv, "/transcribe", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({ file_url: fixtureUrl("/audio.mp3"), language }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { task_id: string }).task_id;
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
    // The spec's VI↔EN translation, through the deployment's Workers AI translation model.
    expect(record?.result?.translation).toBe("vi:s0 s1");
    expect(ai.translations).toEqual([{ text: "s0 s1", source_lang: "en", target_lang: "vi" }]);
    expect(ai.calls).toHaveLength(1);
    expect(ai.calls[0]?.input).toMatchObject({ task: "transcribe", language: "en", vad_filter: true });
    const history = await send(testEnv, "/history", { headers: bearer(key) });
    expect(JSON.stringify(await history.json())).toContain(taskId);
  });

  it("the Queue consumer only hands over and wakes the RemoteTier object: no call, the task still queued", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const taskId = await uploadJob(testEnv, key, pcmWav(5), "short.wav");
    const outcome = await deliverOnly(testEnv, taskId);
    expect(outcome.explicitAcks).toEqual([`msg-${taskId}`]);
    expect(ai.calls).toHaveLength(0);
    expect((await readTranscription(taskId))?.status).toBe("queued");
    await runRemoteTasks(testEnv);
    expect((await readTranscription(taskId))?.status).toBe("done");
  });

  it("the RemoteTier object's alarm runs one bounded batch and re-arms while work remains", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding, { REMOTE_TIER_LEASES_PER_RUN: "1" });
    const tasks = [
      await uploadJob(testEnv, key, pcmWav(5), "one.wav"),
      await uploadJob(testEnv, key, pcmWav(5), "two.wav"),
    ];
    for (const taskId of tasks) await deliverOnly(testEnv, taskId);
    const statuses = async () => Promise.all(tasks.map(async (id) => (await readTranscription(id))?.status));
    // The object runs under the deployment's env; this alarm runs under the test's registry (an alarm the
    // platform delivers meanwhile may too, so only the re-arm and the end state are asserted).
    const rearmed = await runInDurableObject(remoteTier(testEnv, "cf-whisper"), async (object, state) => {
      const deployed = Reflect.get(object, "env");
      Reflect.set(object, "env", testEnv);
      try {
        await state.storage.deleteAlarm();
        await object.alarm();
        const next = await state.storage.getAlarm();
        // Storage calls only since the re-arm: the armed alarm cannot fire before it is taken back.
        await state.storage.deleteAlarm();
        return next;
      } finally {
        Reflect.set(object, "env", deployed);
      }
    });
    expect(rearmed).not.toBeNull();
    expect(await statuses()).toContain("done");
    await runRemoteTasks(testEnv);
    expect(await statuses()).toEqual(["done", "done"]);
  });

  it("one executor run takes at most its budget of leases and says work remains", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding, { REMOTE_TIER_LEASES_PER_RUN: "1" });
    const first = await uploadJob(testEnv, key, pcmWav(5), "one.wav");
    const second = await uploadJob(testEnv, key, pcmWav(5), "two.wav");
    await deliverOnly(testEnv, first);
    await deliverOnly(testEnv, second);
    expect(await runRemoteTasks(testEnv)).toEqual({ ran: 1, workRemains: true });
    expect(await runRemoteTasks(testEnv)).toEqual({ ran: 1, workRemains: true });
    expect(await runRemoteTasks(testEnv)).toEqual({ ran: 0, workRemains: false });
    const statuses = [(await readTranscription(first))?.status, (await readTranscription(second))?.status];
    expect(statuses).toEqual(["done", "done"]);
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
  ] as const)("an endpoint answering %i fails the task %s at once (permanent)", async (status, code) => {
    const { key } = await createKey();
    const testEnv = openAiEnv(`/openai-status/${status}/audio/transcriptions`);
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", code]);
    expect(record?.error).toBe(REMOTE_FAILURE_MESSAGES[code]);
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
    expect(record?.error).toBe(REMOTE_FAILURE_MESSAGES.remote_unavailable);
  }, 30_000);

  it.each([
    [503, "remote_unavailable"],
    [401, "remote_refused"],
  ] as const)(
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
      expect(body.error.message).toContain(REMOTE_FAILURE_MESSAGES[code]);
      const history = (await (await send(testEnv, "/history?limit=1", { headers: bearer(key) })).json()) as {
        jobs: { status: string; error_code: string | null }[];
      };
      expect(history.jobs[0]).toMatchObject({ status: "failed", error_code: code });
    },
    30_000,
  );

  it("cleans the answer as a node does: marker gone, looping phrase collapsed, Vietnamese capitals", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai-noisy/v1/audio/transcriptions");
    const taskId = await submitUrlJob(testEnv, key, "vi");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.status, record?.error ?? "").toBe("done");
    expect(record?.result?.text).toBe("Xin chào các bạn. Cảm ơn.");
    expect(record?.result?.raw_text).toBe("[BLANK_AUDIO] xin chào các bạn. Cảm ơn. Cảm ơn. Cảm ơn. Cảm ơn.");
    expect(record?.result?.segments.map((s) => [s.start, s.end, s.text])).toEqual([
      [1, 3, "Xin chào các bạn."],
      [3, 6, "Cảm ơn."],
    ]);
    expect(record?.result?.has_timestamps).toBe(true);
    expect(record?.result?.language).toBe("Vietnamese");
  });

  it("a json-only model (supports_timestamps false) is asked for json: cleaned text, has_timestamps false", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai-json-only/v1/audio/transcriptions", {}, false);
    const taskId = await submitUrlJob(testEnv, key, "vi");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect(record?.status, record?.error ?? "").toBe("done");
    expect(record?.result?.text).toBe("Xin chào các bạn. Cảm ơn.");
    expect(record?.result?.segments).toEqual([]);
    expect(record?.result?.has_timestamps).toBe(false);
  });

  it("a missing bearer secret fails the task remote_refused, naming the secret", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions", { REMOTE_ASR_KEY: "" });
    const taskId = await uploadJob(testEnv, key, pcmWav(1), "a.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", "remote_refused"]);
    expect(record?.error).toContain("REMOTE_ASR_KEY");
  });
});

describe("a WAV header is not trusted (any remote tier)", { timeout: 60_000 }, () => {
  it.each<[string, CraftedFormat, number]>([
    [
      "a byte rate far above 10 MiB/s",
      { channels: 1, sampleRate: 4_000_000_000, bitsPerSample: 8, blockAlign: 1, byteRate: 4_000_000_000 },
      2048,
    ],
    [
      "a 1 Hz sample rate",
      { channels: 1, sampleRate: 1, bitsPerSample: 8, blockAlign: 1, byteRate: 1 },
      4096,
    ],
    ["0 channels", { channels: 0, sampleRate: 16_000, bitsPerSample: 16, blockAlign: 0, byteRate: 0 }, 3200],
    [
      "300 channels",
      { channels: 300, sampleRate: 8000, bitsPerSample: 16, blockAlign: 600, byteRate: 4_800_000 },
      6000,
    ],
    [
      "a block align that is not channels × bits / 8",
      { channels: 1, sampleRate: 16_000, bitsPerSample: 16, blockAlign: 3, byteRate: 48_000 },
      4800,
    ],
    [
      "a byte rate that is not sample rate × block align",
      { channels: 1, sampleRate: 16_000, bitsPerSample: 16, blockAlign: 2, byteRate: 1 },
      3200,
    ],
  ])("Workers AI: a WAV with %s fails media_unreadable before any call", async (_what, format, dataBytes) => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding);
    const taskId = await uploadJob(testEnv, key, craftedWav(format, dataBytes), "crafted.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code], record?.error ?? "").toEqual(["failed", "media_unreadable"]);
    expect(ai.calls).toHaveLength(0);
  });

  it("Workers AI: a WAV longer than MAX_AUDIO_DURATION_SEC fails audio_too_long before any call", async () => {
    const { key } = await createKey();
    const ai = fakeAi();
    const testEnv = workersAiEnv(ai.binding, { MAX_AUDIO_DURATION_SEC: "60" });
    const taskId = await uploadJob(testEnv, key, pcmWav(90), "long.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code], record?.error ?? "").toEqual(["failed", "audio_too_long"]);
    expect(ai.calls).toHaveLength(0);
  });

  it("OpenAI endpoint: a WAV whose header is longer than the cap fails audio_too_long", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions", { MAX_AUDIO_DURATION_SEC: "5" });
    const taskId = await uploadJob(testEnv, key, pcmWav(10), "long.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code], record?.error ?? "").toEqual(["failed", "audio_too_long"]);
  });

  it("OpenAI endpoint: another format whose answer's duration passes the cap fails audio_too_long", async () => {
    const { key } = await createKey();
    // The fixture endpoint answers `duration: 4.5` whatever it is sent.
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions", { MAX_AUDIO_DURATION_SEC: "3" });
    const accepted = await send(testEnv, "/transcribe", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ file_url: fixtureUrl("/audio.mp3"), language: "en" }),
    });
    const { task_id: taskId } = (await accepted.json()) as { task_id: string };
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code], record?.error ?? "").toEqual(["failed", "audio_too_long"]);
  });

  it("OpenAI endpoint: a WAV with a 1 Hz header fails media_unreadable too", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai/v1/audio/transcriptions");
    const format = { channels: 1, sampleRate: 1, bitsPerSample: 8, blockAlign: 1, byteRate: 1 };
    const taskId = await uploadJob(testEnv, key, craftedWav(format, 4096), "crafted.wav");
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code], record?.error ?? "").toEqual(["failed", "media_unreadable"]);
  });
});

describe("an upstream's answer stays in the log", { timeout: 120_000 }, () => {
  const upstreamHost = () => new URL(fixtureUrl("/")).host;
  const leaks = (text: string) =>
    [upstreamHost(), UPSTREAM_KEY_FRAGMENT, "Incorrect API key"].filter((secret) => text.includes(secret));

  it("an endpoint's 401 (with a key fragment) reaches neither the task's error nor its webhook", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai-status/401/audio/transcriptions");
    const hookName = `leak-${crypto.randomUUID().slice(0, 8)}`;
    const accepted = await send(testEnv, "/transcribe", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({
        file_url: fixtureUrl("/audio.mp3"),
        language: "en",
        webhook_url: fixtureUrl(`/webhook/200/${hookName}`),
      }),
    });
    expect(accepted.status).toBe(200);
    const { task_id: taskId } = (await accepted.json()) as { task_id: string };
    await deliverUnder(testEnv, taskId);
    const record = await readTranscription(taskId);
    expect([record?.status, record?.error_code]).toEqual(["failed", "remote_refused"]);
    expect(leaks(record?.error ?? "")).toEqual([]);
    const view = await send(testEnv, `/transcribe/${taskId}`, { headers: bearer(key) });
    expect(leaks(await view.text())).toEqual([]);
    // The webhook goes out through the real Queue (one-second batches): wait for the receiver to get it.
    const deadline = Date.now() + 90_000;
    let bodies: string[] = [];
    while (bodies.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const log = (await (await fetch(fixtureUrl(`/webhook-log/${hookName}`))).json()) as { body: string }[];
      bodies = log.map((delivery) => delivery.body);
    }
    expect(bodies[0]).toContain('"error_code":"remote_refused"');
    expect(leaks(bodies[0] ?? "")).toEqual([]);
  });

  it("the sync route's answer to an endpoint's 401 names neither the host nor the key fragment", async () => {
    const { key } = await createKey();
    const testEnv = openAiEnv("/openai-status/401/audio/transcriptions");
    const form = new FormData();
    form.append("file", new File([pcmWav(1)], "a.wav", { type: "audio/wav" }));
    form.append("model", "whisper-1");
    const response = await send(testEnv, "/v1/audio/transcriptions", {
      method: "POST",
      headers: bearer(key),
      body: form,
    });
    const body = await response.text();
    expect(response.status, body).toBe(503);
    expect(leaks(body)).toEqual([]);
  });
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
    const wav = readWav(pcmWav(25));
    if (wav.kind !== "wav") throw new Error("not read as a WAV");
    const plan = planPieces(wav.format, wav.dataBytes, {
      pieceSec: 10,
      overlapSec: 1,
      maxPieceBytes: 1 << 20,
    });
    const pieces = [...cutPieces(plan, pcmWav(25).subarray(wav.dataOffset))];
    expect(plan.count).toBe(3);
    expect(pieces.map((p) => [p.offsetSec, p.ownedFrom, p.ownedTo])).toEqual([
      [0, 0, 10],
      [9, 10, 20],
      [19, 20, 25],
    ]);
    const middle = readWav(pieces[1]?.wav ?? new Uint8Array());
    expect(middle.kind === "wav" && middle.dataBytes).toBe(11 * 8000);
    expect(readWav(new TextEncoder().encode("ID3 not a wav")).kind).toBe("not_wav");
  });

  it("sizes pieces in bytes: 48 kHz stereo 16-bit pieces stay within the byte cap, overlap included", () => {
    const format = { channels: 2, sampleRate: 48_000, bitsPerSample: 16 };
    const bytesPerSec = 48_000 * 4;
    const wav = readWav(pcmWavHeader(format, 120 * bytesPerSec), 44 + 120 * bytesPerSec);
    if (wav.kind !== "wav") throw new Error("not read as a WAV");
    const maxPieceBytes = 20 * bytesPerSec;
    const plan = planPieces(wav.format, wav.dataBytes, { pieceSec: 300, overlapSec: 1, maxPieceBytes });
    expect([plan.ownedFrames, plan.overlapFrames, plan.count]).toEqual([19 * 48_000, 48_000, 7]);
    const pieces = [...cutPieces(plan, new Uint8Array(120 * bytesPerSec))];
    expect(pieces.every((p) => p.wav.byteLength - 44 <= maxPieceBytes)).toBe(true);
    expect(pieces.map((p) => p.ownedFrom)).toEqual([0, 19, 38, 57, 76, 95, 114]);
    expect(pieces.at(-1)?.ownedTo).toBe(120);
  });

  it("never owns less than 1 s a piece: a cap under 2 s shrinks the overlap instead", () => {
    const wav = readWav(
      pcmWavHeader({ channels: 1, sampleRate: 8000, bitsPerSample: 8 }, 10 * 8000),
      44 + 10 * 8000,
    );
    if (wav.kind !== "wav") throw new Error("not read as a WAV");
    const plan = planPieces(wav.format, wav.dataBytes, {
      pieceSec: 300,
      overlapSec: 1,
      maxPieceBytes: 12_000,
    });
    expect([plan.ownedFrames, plan.overlapFrames, plan.count]).toEqual([8000, 4000, 10]);
  });
});
