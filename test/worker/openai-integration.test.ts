import { env, exports } from "cloudflare:workers";
import OpenAI from "openai";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { Lease } from "../../protocol/node.ts";
import {
  bearer,
  call,
  createKey,
  createNode,
  insideOneRateWindow,
  RATE_WINDOW_TEST_TIMEOUT_MS,
  readTranscription,
  resetDispatcher,
} from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";
import { clip, OPENAI_BASE, openai } from "./openai-helpers.ts";

/**
 * The compatible endpoints through the official OpenAI SDK, against the Worker's real fetch handler,
 * with a TestNode taking the lease and completing it while the SDK call waits.
 */

beforeEach(resetDispatcher);

/** A two-segment result with diarization, and the decoder detail a node adds for interactive tasks. */
function detailedResult() {
  const base = sampleResult("Hello world. Second line");
  return {
    ...base,
    language: "English",
    duration_sec: 4,
    segments: [
      {
        start: 0,
        end: 2.5,
        start_fmt: "00:00.000",
        end_fmt: "00:02.500",
        text: "Hello world.",
        speaker: "SPEAKER_00",
      },
      {
        start: 2.5,
        end: 4,
        start_fmt: "00:02.500",
        end_fmt: "00:04.000",
        text: "Second line",
        speaker: "SPEAKER_01",
      },
    ],
    segment_count: 2,
    detail: {
      segments: [
        {
          seek: 0,
          tokens: [2425, 1002],
          temperature: 0,
          avg_logprob: -0.3,
          compression_ratio: 0.9,
          no_speech_prob: 0.02,
        },
        {
          seek: 0,
          tokens: [7851],
          temperature: 0,
          avg_logprob: -0.6,
          compression_ratio: 0.8,
          no_speech_prob: 0.1,
        },
      ],
      words: [
        { word: "Hello", start: 0.1, end: 0.6 },
        { word: "world", start: 0.7, end: 1.3 },
        { word: "Second", start: 2.6, end: 3.1 },
        { word: "line", start: 3.2, end: 3.8 },
      ],
    },
  };
}

/** Takes the next lease (waiting for the SDK's upload to become a task) and completes it. */
async function serveOne(
  node: TestNode,
  result: Record<string, unknown> = sampleResult("hello"),
): Promise<Lease> {
  const [lease] = await node.lease(1, 10_000);
  if (!lease) throw new Error("no lease");
  const done = await node.complete(lease.lease_id, result);
  if (done.status !== 204) throw new Error(`complete: ${done.status} ${await done.text()}`);
  return lease;
}

describe("POST /v1/audio/transcriptions with the OpenAI SDK", () => {
  it("answers json by default and runs an ordinary interactive task that shows in /history", async () => {
    const { id, key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const [transcript, lease] = await Promise.all([
      client.audio.transcriptions.create({ file: clip(), model: "whisper-1", prompt: "Voxedge" }),
      serveOne(node, sampleResult("xin chào")),
    ]);
    expect(transcript.text).toBe("xin chào");
    // no language was asked, so the json names the one detected, as OpenAI's newer models do
    expect(Object.keys(transcript).filter((k) => k !== "_request_id")).toEqual([
      "text",
      "usage",
      "languages",
    ]);
    expect((transcript as unknown as { languages: unknown }).languages).toEqual([{ code: "vi" }]);
    // sampleResult's 1.5 s, rounded up to whole seconds as OpenAI bills
    expect(transcript.usage).toEqual({ type: "duration", seconds: 2 });
    expect(lease.lane).toBe("interactive");
    expect(lease.params).toMatchObject({
      model_id: "whisper-base",
      language: null,
      context: "Voxedge",
      task: "transcribe",
      response_format: "json",
      word_timestamps: false,
      // no chunking_strategy: one block, as OpenAI documents it (every sample decoded)
      chunking: "none",
    });
    expect(lease.kind).toBe("transcribe");
    expect(lease.source).toEqual({
      type: "object",
      object_key: (await readTranscription(lease.task_id))?.params.object_key,
    });
    const record = await readTask(env, lease.task_id);
    expect(record).toMatchObject({ owner_key_id: id, lane: "interactive", status: "done" });
    const history = (await (await call("/history", { headers: bearer(key) })).json()) as {
      jobs: { task_id: string; params: Record<string, unknown> }[];
    };
    expect(history.jobs[0]).toMatchObject({ task_id: lease.task_id, params: { task: "transcribe" } });
  });

  it("answers verbose_json with segments, scores and word timings from the node's detail", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const [verbose, lease] = await Promise.all([
      client.audio.transcriptions.create({
        file: clip(),
        model: "whisper-1",
        language: "en",
        response_format: "verbose_json",
        timestamp_granularities: ["word", "segment"],
      }),
      serveOne(new TestNode(), detailedResult()),
    ]);
    expect(lease.params).toMatchObject({
      language: "en",
      response_format: "verbose_json",
      word_timestamps: true,
    });
    expect(verbose).toMatchObject({
      task: "transcribe",
      language: "english",
      duration: 4,
      text: "Hello world. Second line",
    });
    expect(verbose.segments?.[0]).toEqual({
      id: 0,
      seek: 0,
      start: 0,
      end: 2.5,
      text: " Hello world.",
      tokens: [2425, 1002],
      temperature: 0,
      avg_logprob: -0.3,
      compression_ratio: 0.9,
      no_speech_prob: 0.02,
    });
    expect(verbose.words).toEqual(detailedResult().detail.words);
    expect(verbose.usage).toEqual({ type: "duration", seconds: 4 });

    // The detail is internal: the public views of the task show the plain result.
    const poll = (await (await call(`/transcribe/${lease.task_id}`, { headers: bearer(key) })).json()) as {
      result: Record<string, unknown>;
    };
    expect(poll.result.text).toBe("Hello world. Second line");
    expect(poll.result).not.toHaveProperty("detail");
    expect((await readTask(env, lease.task_id))?.result).not.toHaveProperty("detail");
  });

  it("answers verbose_json without words unless the word granularity is asked for", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const [verbose] = await Promise.all([
      client.audio.transcriptions.create({
        file: clip(),
        model: "whisper-1",
        response_format: "verbose_json",
      }),
      serveOne(new TestNode(), detailedResult()),
    ]);
    expect(verbose.segments).toHaveLength(2);
    expect(verbose).not.toHaveProperty("words");
  });

  it("answers text, srt and vtt byte for byte as OpenAI does", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const ask = async (format: "text" | "srt" | "vtt") => {
      const [body] = await Promise.all([
        client.audio.transcriptions.create({ file: clip(), model: "whisper-1", response_format: format }),
        serveOne(node, detailedResult()),
      ]);
      return body;
    };
    expect(await ask("text")).toBe("Hello world. Second line\n");
    expect(await ask("srt")).toBe(
      "1\n00:00:00,000 --> 00:00:02,500\nHello world.\n\n2\n00:00:02,500 --> 00:00:04,000\nSecond line\n\n",
    );
    expect(await ask("vtt")).toBe(
      "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n<v SPEAKER_00>Hello world.\n\n" +
        "00:00:02.500 --> 00:00:04.000\n<v SPEAKER_01>Second line\n\n",
    );
  });

  it("names the task in a header of the raw response", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const [{ response }, lease] = await Promise.all([
      client.audio.transcriptions.create({ file: clip(), model: "whisper-1" }).withResponse(),
      serveOne(new TestNode()),
    ]);
    expect(response.headers.get("x-voxedge-task-id")).toBe(lease.task_id);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("accepts x-api-key too (not declared, accepted silently)", async () => {
    const { key } = await createKey();
    const form = new FormData();
    form.append("file", clip());
    form.append("model", "whisper-1");
    const [response] = await Promise.all([
      call("/v1/audio/transcriptions", { method: "POST", headers: { "x-api-key": key }, body: form }),
      serveOne(new TestNode()),
    ]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      text: "hello",
      usage: { type: "duration", seconds: 2 },
      languages: [{ code: "vi" }],
    });
  });
});

describe("POST /v1/audio/translations", () => {
  it("creates a translate task (speech to English) without a language", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const [verbose, lease] = await Promise.all([
      client.audio.translations.create({ file: clip(), model: "whisper-1", response_format: "verbose_json" }),
      serveOne(new TestNode(), { ...sampleResult("good morning"), language: "English" }),
    ]);
    expect(lease.params).toMatchObject({
      task: "translate",
      language: null,
      response_format: "verbose_json",
      chunking: "none",
    });
    expect(verbose).toMatchObject({ task: "translate", language: "english", text: "good morning" });
    // English is whisper's own translation: the params are what they always were
    expect(lease.params).not.toHaveProperty("target_language");
  });
});

describe("target_language on /v1/audio/translations (extension)", () => {
  /** A node whose translation backend offers `pairs`, registered with the scheduler before the call. */
  async function translatingNode(pairs: [string, string][]): Promise<TestNode> {
    const node = new TestNode({ mt_loaded: true, mt_model: "libretranslate", mt_pairs: pairs });
    await node.lease(1, 0);
    return node;
  }

  it("asks the node to translate into the target, sent as an extra form field through the SDK", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = await translatingNode([["vi", "es"]]);
    const [srt, lease] = await Promise.all([
      client.audio.translations.create({
        file: clip(),
        model: "whisper-1",
        response_format: "srt",
        // @ts-expect-error a Voxedge extension, sent as-is by the SDK
        target_language: "ES",
      }),
      serveOne(node, { ...sampleResult("hola a todos"), language: "Spanish" }),
    ]);
    expect(lease.params).toMatchObject({ task: "translate", target_language: "es", response_format: "srt" });
    expect(srt).toBe("1\n00:00:00,000 --> 00:00:01,500\nhola a todos\n\n");
  });

  it("refuses a value that is not a language code with OpenAI's 400 naming target_language", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const error = await client.audio.translations
      // @ts-expect-error a Voxedge extension
      .create({ file: clip(), model: "whisper-1", target_language: "klingon" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: "target_language", code: "invalid_value" });
    expect(error.message).toMatch(/target_language "klingon" is not a language code/);
  });

  it("refuses a target no connected backend translates into, listing the pairs there are", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    await translatingNode([
      ["vi", "es"],
      ["en", "vi"],
    ]);
    const error = await client.audio.translations
      // @ts-expect-error a Voxedge extension
      .create({ file: clip(), model: "whisper-1", target_language: "de" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: "target_language", code: "unsupported_value" });
    expect(error.message).toContain(
      'target_language "de" is not available: no connected translation backend translates into it. ' +
        "Available: any language -> en (whisper itself); through the translation backends: en->vi, vi->es",
    );
  });
});

describe("diarized_json and the SDK's encodings", () => {
  it("answers diarized_json as OpenAI's TranscriptionDiarized, speakers A, B by first appearance", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const [diarized, lease] = await Promise.all([
      client.audio.transcriptions.create({
        file: clip(),
        model: "gpt-4o-transcribe-diarize",
        response_format: "diarized_json",
        chunking_strategy: "auto",
      }),
      serveOne(new TestNode(), detailedResult()),
    ]);
    expect(lease.params).toMatchObject({
      response_format: "diarized_json",
      word_timestamps: false,
      chunking: "auto",
    });
    const { _request_id: _, ...body } = diarized as typeof diarized & { _request_id?: string };
    expect(body).toEqual({
      task: "transcribe",
      duration: 4,
      text: "Hello world. Second line",
      segments: [
        {
          type: "transcript.text.segment",
          id: "seg_0",
          start: 0,
          end: 2.5,
          text: "Hello world.",
          speaker: "A",
        },
        {
          type: "transcript.text.segment",
          id: "seg_1",
          start: 2.5,
          end: 4,
          text: "Second line",
          speaker: "B",
        },
      ],
      usage: { type: "duration", seconds: 4 },
    });
  });

  it("carries known speakers' reference clips to the node through its lease and answers their names", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    // clips well over the 16 KiB every other field is held to, as real 2-10 s references are
    const clips = [new Uint8Array(300_000).fill(1), new Uint8Array(40_000).fill(2)];
    const dataUrl = (bytes: Uint8Array) =>
      `data:audio/wav;base64,${btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""))}`;
    const serve = async () => {
      const [lease] = await node.lease(1, 10_000);
      if (!lease) throw new Error("no lease");
      const fetched = await Promise.all(
        [0, 1, 2].map((i) => node.get(`/leases/${lease.lease_id}/speakers/${i}`)),
      );
      const bytes = await Promise.all(
        fetched.slice(0, 2).map(async (r) => new Uint8Array(await r.arrayBuffer())),
      );
      // the node names the clusters it matched (here the second) and leaves the rest anonymous
      const result = detailedResult();
      const segments = result.segments.map((segment, i) =>
        i === 1 ? { ...segment, speaker: "customer" } : segment,
      );
      const done = await node.complete(lease.lease_id, { ...result, segments });
      if (done.status !== 204) throw new Error(`complete: ${done.status} ${await done.text()}`);
      return { lease, statuses: fetched.map((r) => r.status), bytes };
    };
    const [{ data: diarized, response }, served] = await Promise.all([
      client.audio.transcriptions
        .create({
          file: clip(),
          model: "gpt-4o-transcribe-diarize",
          response_format: "diarized_json",
          known_speaker_names: ["agent", "customer"],
          known_speaker_references: clips.map(dataUrl),
        })
        .withResponse(),
      serve(),
    ]);
    expect(served.statuses).toEqual([200, 200, 404]);
    expect(served.bytes).toEqual(clips);
    expect(served.lease.params).toMatchObject({
      known_speakers: [{ name: "agent" }, { name: "customer" }],
    });
    const { segments } = diarized as unknown as { segments: { speaker: string }[] };
    expect(segments.map((segment) => segment.speaker)).toEqual(["A", "customer"]);
    // the clips go with the task's media
    const { object_key: upload } = served.lease.params as { object_key: string };
    const prefix = `known-speakers/${upload.split("/")[1]}/`;
    expect((await env.MEDIA.list({ prefix })).objects).toHaveLength(2);
    const taskId = response.headers.get("x-voxedge-task-id");
    const deleted = await call(`/transcribe/${taskId}`, { method: "DELETE", headers: bearer(key) });
    expect(deleted.status).toBe(204);
    expect((await env.MEDIA.list({ prefix })).objects).toHaveLength(0);
  }, 30_000); // 340 KB of clips through the multipart parser: seconds on a loaded 2-core machine

  it("applies chunking_strategy sent as the SDK's chunking_strategy[prop] parts and as a JSON string, and stream=false", async () => {
    const { key } = await createKey();
    // the official SDK, keeping a copy of each form it sends
    const sent: FormData[] = [];
    const client = new OpenAI({
      apiKey: key,
      baseURL: OPENAI_BASE,
      maxRetries: 0,
      fetch: (async (url: string | URL | Request, init?: RequestInit) => {
        const request = new Request(url, init);
        sent.push(await request.clone().formData());
        return exports.default.fetch(request);
      }) as unknown as typeof fetch,
    });
    const node = new TestNode();
    const [vad, vadLease] = await Promise.all([
      client.audio.transcriptions.create({
        file: clip(),
        model: "whisper-1",
        stream: false,
        chunking_strategy: {
          type: "server_vad",
          threshold: 0.6,
          prefix_padding_ms: 300,
          silence_duration_ms: 500,
        },
      }),
      serveOne(node),
    ]);
    expect(vad.text).toBe("hello");
    expect(vadLease.params).toMatchObject({
      chunking: { type: "server_vad", threshold: 0.6, prefix_padding_ms: 300, silence_duration_ms: 500 },
    });
    // what the SDK sent: the object as bracketed parts, the boolean as "false"
    expect(sent[0]?.get("chunking_strategy[type]")).toBe("server_vad");
    expect(sent[0]?.get("chunking_strategy[silence_duration_ms]")).toBe("500");
    expect(sent[0]?.get("stream")).toBe("false");

    const form = new FormData();
    form.append("file", clip());
    form.append("model", "whisper-1");
    form.append("chunking_strategy", JSON.stringify({ type: "server_vad", silence_duration_ms: 400 }));
    form.append("timestamp_granularities", "word");
    form.append("timestamp_granularities", "segment");
    form.append("response_format", "verbose_json");
    const [response, lease] = await Promise.all([
      call("/v1/audio/transcriptions", { method: "POST", headers: bearer(key), body: form }),
      serveOne(node, detailedResult()),
    ]);
    expect(response.status).toBe(200);
    expect(lease.params).toMatchObject({
      response_format: "verbose_json",
      word_timestamps: true,
      // the properties omitted take OpenAI's documented defaults
      chunking: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 400 },
    });
    expect(((await response.json()) as { words: unknown[] }).words).toHaveLength(4);
  });

  it("refuses what it cannot honour with a 400 naming the field, storing nothing", async () => {
    const { key } = await createKey();
    const { client, requests } = openai(key, { maxRetries: 2 });
    const before = (await env.MEDIA.list({ prefix: "uploads/" })).objects.length;
    const refused = async (params: Record<string, unknown>) => {
      const error = await client.audio.transcriptions
        .create({ file: clip(), model: "whisper-1", ...params } as Parameters<
          typeof client.audio.transcriptions.create
        >[0])
        .catch((e) => e);
      expect(error, JSON.stringify(params)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.headers.get("x-should-retry")).toBe("false");
      return error as InstanceType<typeof OpenAI.BadRequestError>;
    };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { timestamp_granularities: ["word"] },
        "timestamp_granularities",
        /needs response_format verbose_json/,
      ],
      [
        { response_format: "diarized_json", timestamp_granularities: ["segment"] },
        "timestamp_granularities",
        /got diarized_json/,
      ],
      [
        { response_format: "diarized_json", prompt: "Voxedge" },
        "prompt",
        /not supported with response_format diarized_json/,
      ],
      [
        { include: ["logprobs"], response_format: "text" },
        "include",
        /include\[\]=logprobs is only available with response_format json/,
      ],
      [{ keywords: ["a\nb"] }, "keywords", /one non-empty line without < or >/],
      [{ language: "en", languages: ["en", "vi"] }, "languages", /cannot both be set/],
      [
        {
          response_format: "diarized_json",
          known_speaker_names: ["agent"],
          known_speaker_references: ["https://example.com/agent.wav"],
        },
        "known_speaker_references",
        /known_speaker_references\[0\] is not an audio data URL/,
      ],
      [
        { known_speaker_names: ["agent"], known_speaker_references: ["data:audio/wav;base64,AAAA"] },
        "known_speaker_names",
        /known speakers need response_format diarized_json \(got json\)/,
      ],
      [{ chunking_strategy: { type: "server_vad", threshold: 2 } }, "chunking_strategy", /threshold/],
      [{ chunking_strategy: "fixed" }, "chunking_strategy", /"fixed" is not supported/],
    ];
    for (const [params, param, message] of cases) {
      const error = await refused(params);
      expect(error.param).toBe(param);
      expect(error.message).toMatch(message);
    }
    expect(requests).toHaveLength(cases.length);
    expect((await env.MEDIA.list({ prefix: "uploads/" })).objects.length).toBe(before);
  });
});

describe("stream=true", () => {
  /** Takes the streaming task's lease, checking the Worker asked the node for partial reports. */
  async function streamingLease(node: TestNode): Promise<Lease> {
    const [lease] = await node.lease(1, 10_000);
    if (!lease) throw new Error("no lease");
    expect(lease.params).toMatchObject({ stream_partials: true });
    return lease;
  }

  it("streams each decoded window as deltas while the task runs, then done with the result's text", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const stream = client.audio.transcriptions.create({
      file: clip(),
      model: "gpt-4o-transcribe",
      stream: true,
    });
    const lease = await streamingLease(node);
    const events: { type: string; delta?: string; text?: string; usage?: unknown }[] = [];
    const reading = (async () => {
      for await (const event of await stream) events.push(event as (typeof events)[number]);
    })();
    expect((await node.partial(lease.lease_id, 0, ["Hello world."])).status).toBe(204);
    // the first delta reaches the caller while the task still runs: a stream, not a late body
    for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([{ type: "transcript.text.delta", delta: "Hello world." }]);
    expect((await readTask(env, lease.task_id))?.status).toBe("processing");
    await node.partial(lease.lease_id, 1, ["Second line.", "  "]);
    await node.partial(lease.lease_id, 1, ["Second line."]); // a retried report is kept once
    expect((await node.complete(lease.lease_id, sampleResult("Hello world. Second line."))).status).toBe(204);
    await reading;
    expect(events).toEqual([
      { type: "transcript.text.delta", delta: "Hello world." },
      { type: "transcript.text.delta", delta: " Second line." },
      {
        type: "transcript.text.done",
        text: "Hello world. Second line.",
        usage: { type: "duration", seconds: 2 },
        languages: [{ code: "vi" }],
      },
    ]);
  });

  it("gives each delta its tokens' logprobs with include[]=logprobs, and the json body all of them", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const tokens = [
      { token: " Hello", logprob: -0.12, bytes: [32, 72, 101, 108, 108, 111] },
      { token: " world.", logprob: -0.4, bytes: [32, 119, 111, 114, 108, 100, 46] },
    ];
    const stream = client.audio.transcriptions.create({
      file: clip(),
      model: "gpt-4o-transcribe",
      language: "en",
      include: ["logprobs"],
      stream: true,
    });
    const lease = await streamingLease(node);
    expect(lease.params).toMatchObject({ logprobs: true, language: "en" });
    const events: Record<string, unknown>[] = [];
    const reading = (async () => {
      for await (const event of await stream) events.push(event as unknown as Record<string, unknown>);
    })();
    expect((await node.partial(lease.lease_id, 0, ["Hello world."], [tokens])).status).toBe(204);
    expect((await node.complete(lease.lease_id, sampleResult("Hello world."))).status).toBe(204);
    await reading;
    // a language was asked: done names none
    expect(events).toEqual([
      { type: "transcript.text.delta", delta: "Hello world.", logprobs: tokens },
      { type: "transcript.text.done", text: "Hello world.", usage: { type: "duration", seconds: 2 } },
    ]);

    const result = detailedResult();
    const [transcript] = await Promise.all([
      client.audio.transcriptions.create({
        file: clip(),
        model: "whisper-1",
        include: ["logprobs"],
        response_format: "json",
      }),
      serveOne(node, { ...result, detail: { ...result.detail, logprobs: tokens } }),
    ]);
    expect(transcript.logprobs).toEqual(tokens);
    const bytes = new Uint8Array(transcript.logprobs?.flatMap((t) => t.bytes ?? []) ?? []);
    expect(new TextDecoder().decode(bytes)).toBe(" Hello world.");
  });

  it("gives diarized_json's segments with their speakers once known, before done", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const stream = client.audio.transcriptions.create({
      file: clip(),
      model: "gpt-4o-transcribe-diarize",
      response_format: "diarized_json",
      stream: true,
    });
    const lease = await streamingLease(node);
    await node.complete(lease.lease_id, detailedResult());
    const types: string[] = [];
    const speakers: string[] = [];
    for await (const event of await stream) {
      types.push(event.type);
      if (event.type === "transcript.text.segment") speakers.push(event.speaker);
    }
    expect(types).toEqual(["transcript.text.segment", "transcript.text.segment", "transcript.text.done"]);
    expect(speakers).toEqual(["A", "B"]);
  });

  it("ends the stream with an error event the SDK throws when the task fails after it began", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const stream = client.audio.transcriptions.create({ file: clip(), model: "whisper-1", stream: true });
    const lease = await streamingLease(node);
    await node.partial(lease.lease_id, 0, ["Half of it"]);
    await node.fail(lease.lease_id, "media_unreadable", "the file is not audio");
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of await stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["transcript.text.delta"]);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/could not transcribe the file/);
  });

  it("refuses stream=true with a format that is a document, naming stream", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    for (const response_format of ["verbose_json", "srt", "vtt"] as const) {
      const error = await client.audio.transcriptions
        .create({ file: clip(), model: "whisper-1", stream: true, response_format })
        .catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe("stream");
    }
  });

  it("takes partial reports only from the node holding the lease, bounded", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const node = new TestNode();
    const stream = client.audio.transcriptions.create({ file: clip(), model: "whisper-1", stream: true });
    const lease = await streamingLease(node);
    const stranger = new TestNode({ node_id: "stranger" }, (await createNode("stranger")).token);
    expect((await stranger.partial(lease.lease_id, 0, ["forged"])).status).toBe(410);
    expect((await node.partial("no-such-lease", 0, ["x"])).status).toBe(410);
    const tooMany = Array.from({ length: 65 }, () => "word");
    expect((await node.partial(lease.lease_id, 0, tooMany)).status).toBe(422);
    await node.complete(lease.lease_id, sampleResult("fine"));
    const deltas: string[] = [];
    for await (const event of await stream)
      if (event.type === "transcript.text.delta") deltas.push(event.delta);
    expect(deltas).toEqual([]);
  });
});

describe("errors in OpenAI's envelope", () => {
  it("a wrong key raises AuthenticationError with our message, and nothing is stored", async () => {
    const { client, requests } = openai("vx_wrong-key", { maxRetries: 2 });
    const error = await client.audio.transcriptions
      .create({ file: clip(), model: "whisper-1" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.message).toBe("401 invalid or revoked API key");
    expect(error.error).toEqual({
      message: "invalid or revoked API key",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    });
    expect(error.headers.get("x-should-retry")).toBe("false");
    expect(requests).toHaveLength(1);
  });

  it("answers 413 to a declared Content-Length over 2 GB before reading the body", async () => {
    const { key } = await createKey();
    const neverRead = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error("the body must not be read");
      },
    });
    const response = await call("/v1/audio/transcriptions", {
      method: "POST",
      headers: {
        ...bearer(key),
        "content-type": "multipart/form-data; boundary=xyz",
        "content-length": String(2 * 1024 ** 3 + 1024 * 1024),
      },
      body: neverRead,
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(await response.json()).toEqual({
      error: {
        message: `the file is larger than the limit of ${2 * 1024 ** 3} bytes`,
        type: "invalid_request_error",
        param: "file",
        code: null,
      },
    });
  });

  it("answers 400 to an unsupported response_format and language, storing nothing", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const before = (await env.MEDIA.list({ prefix: "uploads/" })).objects.length;
    const format = await client.audio.transcriptions
      .create({ file: clip(), model: "whisper-1", response_format: "ass" as "json" })
      .catch((e) => e);
    expect(format).toBeInstanceOf(OpenAI.BadRequestError);
    expect(format.param).toBe("response_format");
    expect(format.headers.get("x-should-retry")).toBe("false");
    const language = await client.audio.transcriptions
      .create({ file: clip(), model: "whisper-1", language: "tlh" })
      .catch((e) => e);
    expect(language).toBeInstanceOf(OpenAI.BadRequestError);
    expect(language.param).toBe("language");
    expect(language.message).toMatch(/unsupported language "tlh"/);
    expect((await env.MEDIA.list({ prefix: "uploads/" })).objects.length).toBe(before);
  });

  it("answers a form without a file as OpenAI does (400), and 422 in the envelope to a malformed form", async () => {
    const { key } = await createKey();
    const form = new FormData();
    form.append("model", "whisper-1");
    const missing = await call("/v1/audio/transcriptions", {
      method: "POST",
      headers: bearer(key),
      body: form,
    });
    // OpenAI's own answer to a request without `file`, word for word (docs/api.md)
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: {
        message: "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    });
    const { client } = openai(key);
    const temperature = await client.audio.transcriptions
      .create({ file: clip(), model: "whisper-1", temperature: "hot" as unknown as number })
      .catch((e) => e);
    expect(temperature).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(temperature.param).toBe("temperature");
    const notForm = await call("/v1/audio/transcriptions", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: "{}",
    });
    expect(notForm.status).toBe(422);
    expect(((await notForm.json()) as { error: { message: string } }).error.message).toMatch(/multipart/);
  });

  it(
    "answers 429 with Retry-After once the key used up its minute",
    async () => {
      const { key } = await createKey();
      await insideOneRateWindow();
      for (let i = 0; i < 60; i++) {
        const presign = await call("/uploads/presign", {
          method: "POST",
          headers: { ...bearer(key), "content-type": "application/json" },
          body: JSON.stringify({ filename: "a.wav" }),
        });
        if (presign.status === 429) break;
      }
      const { client } = openai(key);
      const error = await client.audio.transcriptions
        .create({ file: clip(), model: "whisper-1" })
        .catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(error.headers.get("retry-after")).toBe("60");
      expect(error.error).toMatchObject({ type: "requests", code: "rate_limit_exceeded" });
    },
    RATE_WINDOW_TEST_TIMEOUT_MS,
  );

  it("fails a file the node cannot decode with a 400 the SDK does not retry", async () => {
    const { key } = await createKey();
    const { client, requests } = openai(key, { maxRetries: 2 });
    const node = new TestNode();
    const [error] = await Promise.all([
      client.audio.transcriptions.create({ file: clip(), model: "whisper-1" }).catch((e) => e),
      node
        .lease(1, 10_000)
        .then(([lease]) =>
          node.fail(lease!.lease_id, "media_unreadable", "cannot decode the media as audio: junk"),
        ),
    ]);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: "file", code: "invalid_file" });
    expect(error.message).toMatch(/cannot decode the media as audio/);
    expect(requests).toHaveLength(1);
  });

  it("fails a node failure with a 500 carrying x-should-retry: false, so the SDK does not re-run it", async () => {
    const { key } = await createKey();
    const { client, requests } = openai(key, { maxRetries: 2 });
    const node = new TestNode();
    const [error, failed] = await Promise.all([
      client.audio.transcriptions.create({ file: clip(), model: "whisper-1" }).catch((e) => e),
      node.lease(1, 10_000).then(async ([lease]) => {
        await node.fail(lease!.lease_id, "invalid_params", "invalid task parameters: language");
        return lease!;
      }),
    ]);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error.status).toBe(500);
    expect(error.headers.get("x-should-retry")).toBe("false");
    expect(error.headers.get("x-voxedge-task-id")).toBe(failed.task_id);
    expect(error.message).toMatch(/the transcription failed: invalid task parameters/);
    expect(requests).toHaveLength(1);
  });

  it("answers unknown /v1 routes in the envelope too", async () => {
    const response = await call("/v1/chat/completions", { method: "POST" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { type: "invalid_request_error", message: "no such route" },
    });
  });
});

describe("GET /v1/models", () => {
  it("lists the registry's models and whisper-1 in OpenAI's list shape", async () => {
    const { key } = await createKey();
    const { client } = openai(key);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      { id: "whisper-base", object: "model", created: 0, owned_by: "voxedge" },
      { id: "whisper-1", object: "model", created: 0, owned_by: "voxedge" },
    ]);
    const raw = await call("/v1/models", { headers: bearer(key) });
    expect(await raw.json()).toEqual({ object: "list", data: models });
    expect((await client.models.retrieve("whisper-1")).id).toBe("whisper-1");
    const missing = await client.models.retrieve("gpt-4o-transcribe").catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.error).toMatchObject({ code: "model_not_found", param: "model" });
  });

  it("needs a key, so clients can check theirs with it", async () => {
    const { client } = openai("vx_nope");
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const response = await call("/v1/models");
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(OPENAI_BASE).toBe("http://voxedge.test/v1");
  });
});
