import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { envelopeAtPath } from "../../worker/app.ts";
import { contentEnvelope } from "../../worker/content/errors.ts";
import { defaultEnvelope } from "../../worker/error-envelope.ts";
import { ApiError, validationError } from "../../worker/errors.ts";
import { OpenAIError, openAIEnvelope, toOpenAIWire } from "../../worker/openai/errors.ts";
import { formInput, parseSyncRequest } from "../../worker/openai/request.ts";

const fields = (entries: [string, string][]) => {
  const map = new Map<string, string[]>();
  for (const [name, value] of entries) map.set(name, [...(map.get(name) ?? []), value]);
  return map;
};

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("formInput", () => {
  it("reads both spellings of the granularities, repeated or comma-separated; first value wins elsewhere", () => {
    const input = formInput(
      fields([
        ["timestamp_granularities[]", "word"],
        ["timestamp_granularities[]", "segment"],
        ["timestamp_granularities", "word, segment"],
        ["response_format", "srt"],
        ["response_format", "vtt"],
        ["language", ""],
        ["stream", "true"],
      ]),
    );
    expect(input).toEqual({
      response_format: "srt",
      stream: "true",
      include: [],
      known_speaker_names: [],
      known_speaker_references: [],
      keywords: [],
      languages: [],
      timestamp_granularities: ["word", "segment", "word", "segment"],
    });
  });

  it("reads arrays as key[] or repeated key, and objects as key[prop] parts or a JSON string", () => {
    const sdk = formInput(
      fields([
        ["include[]", "logprobs"],
        ["known_speaker_names[]", "agent"],
        ["known_speaker_names", "customer"],
        ["chunking_strategy[type]", "server_vad"],
        ["chunking_strategy[threshold]", "0.4"],
      ]),
    );
    expect(sdk).toMatchObject({
      include: ["logprobs"],
      known_speaker_names: ["agent", "customer"],
      chunking_strategy: { type: "server_vad", threshold: "0.4" },
    });
    const json = formInput(
      fields([["chunking_strategy", '{"type":"server_vad","silence_duration_ms":500}']]),
    );
    expect(json.chunking_strategy).toEqual({ type: "server_vad", silence_duration_ms: 500 });
    expect(formInput(fields([["chunking_strategy", "auto"]])).chunking_strategy).toBe("auto");
    expect(formInput(fields([])).chunking_strategy).toBeUndefined();
  });
});

describe("parseSyncRequest", () => {
  it("stores the task's params: prompt as context, language normalised, word timings only for verbose_json", () => {
    const request = parseSyncRequest(
      env,
      fields([
        ["model", "whisper-1"],
        ["language", "EN"],
        ["prompt", "Voxedge, whisper"],
        ["response_format", "verbose_json"],
        ["temperature", "0.2"],
        ["timestamp_granularities[]", "word"],
      ]),
      "transcribe",
    );
    expect(request).toEqual({
      format: "verbose_json",
      granularities: ["word"],
      stream: false,
      references: [],
      params: {
        model_id: "whisper-base",
        language: "en",
        context: "Voxedge, whisper",
        task: "transcribe",
        response_format: "verbose_json",
        word_timestamps: true,
        chunking: "none",
      },
    });
    const segments = parseSyncRequest(
      env,
      fields([
        ["response_format", "verbose_json"],
        ["timestamp_granularities", "segment"],
      ]),
      "transcribe",
    );
    expect(segments.params.word_timestamps).toBe(false);
  });

  it("accepts diarized_json, chunking_strategy in each encoding, and stream=false", () => {
    for (const chunking of [
      [["chunking_strategy", "auto"]],
      [["chunking_strategy[type]", "server_vad"]],
      [
        ["chunking_strategy[type]", "server_vad"],
        ["chunking_strategy[threshold]", "0.5"],
        ["chunking_strategy[prefix_padding_ms]", "300"],
        ["chunking_strategy[silence_duration_ms]", "200"],
      ],
      [["chunking_strategy", '{"type":"server_vad","threshold":1}']],
    ] as [string, string][][]) {
      const request = parseSyncRequest(
        env,
        fields([["response_format", "diarized_json"], ["stream", "false"], ...chunking]),
        "transcribe",
      );
      expect(request.format).toBe("diarized_json");
      expect(request.params.response_format).toBe("diarized_json");
    }
  });

  it("takes logprobs, keywords and languages as OpenAI's newer models do", () => {
    const parsed = (entries: [string, string][]) => parseSyncRequest(env, fields(entries), "transcribe");
    const logprobs = parsed([["include[]", "logprobs"]]);
    expect(logprobs.params.logprobs).toBe(true);
    expect(parsed([]).params.logprobs).toBeUndefined();
    // keywords bias decoding through the prompt: after the caller's own prompt
    const keywords = parsed([
      ["prompt", "A product call."],
      ["keywords[]", "Voxedge"],
      ["keywords", "Cloudflare Workers"],
    ]);
    expect(keywords.params.context).toBe("A product call. Voxedge, Cloudflare Workers");
    // one language is the language; several restrict detection to them
    const one = parsed([["languages[]", "VI"]]);
    expect(one.params.language).toBe("vi");
    expect(one.params.detect_languages).toBeUndefined();
    const several = parsed([
      ["languages[]", "vi"],
      ["languages[]", "en"],
      ["languages[]", "vi"],
    ]);
    expect(several.params.language).toBeNull();
    expect(several.params.detect_languages).toEqual(["vi", "en"]);
  });

  it("answers 400 naming the field for each combination or option it cannot honour", () => {
    const refused = (entries: [string, string][], task: "transcribe" | "translate" = "transcribe") =>
      toOpenAIWire(thrown(() => parseSyncRequest(env, fields(entries), task)));
    const cases: [[string, string][], string, RegExp][] = [
      [
        [["timestamp_granularities[]", "word"]],
        "timestamp_granularities",
        /needs response_format verbose_json \(got json\)/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["timestamp_granularities[]", "segment"],
        ],
        "timestamp_granularities",
        /verbose_json/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["prompt", "names"],
        ],
        "prompt",
        /prompt is not supported with response_format diarized_json/,
      ],
      [
        [
          ["response_format", "verbose_json"],
          ["include[]", "logprobs"],
        ],
        "include",
        /only available with response_format json \(got verbose_json\)/,
      ],
      [[["include[]", "tokens"]], "include", /"tokens" is not supported/],
      [[["keywords[]", "Voxedge\nSTT"]], "keywords", /one non-empty line without < or >/],
      [[["keywords[]", "<b>"]], "keywords", /one non-empty line without < or >/],
      [[["keywords[]", " "]], "keywords", /one non-empty line/],
      [
        [
          ["prompt", "x".repeat(1995)],
          ["keywords[]", "Voxedge"],
        ],
        "keywords",
        /together are over 2000 characters/,
      ],
      [
        [
          ["language", "en"],
          ["languages[]", "vi"],
        ],
        "languages",
        /language and languages cannot both be set/,
      ],
      [
        [
          ["languages[]", "vi"],
          ["languages[]", "klingon"],
        ],
        "languages",
        /"klingon" is not a language code/,
      ],
      [[["known_speaker_names[]", "agent"]], "known_speaker_names", /need response_format diarized_json/],
      [
        [
          ["response_format", "diarized_json"],
          ["known_speaker_names[]", "agent"],
        ],
        "known_speaker_references",
        /known_speaker_names has 1 entries and known_speaker_references 0/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ...["a", "b", "c", "d", "e"].flatMap((name): [string, string][] => [
            ["known_speaker_names[]", name],
            ["known_speaker_references[]", "data:audio/wav;base64,AAAA"],
          ]),
        ],
        "known_speaker_names",
        /at most 4 known speakers are supported \(got 5\)/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["known_speaker_names[]", "agent"],
          ["known_speaker_names[]", "agent"],
          ["known_speaker_references[]", "data:audio/wav;base64,AAAA"],
          ["known_speaker_references[]", "data:audio/wav;base64,AAAA"],
        ],
        "known_speaker_names",
        /repeats "agent"/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["known_speaker_names[]", "SPEAKER_00"],
          ["known_speaker_references[]", "data:audio/wav;base64,AAAA"],
        ],
        "known_speaker_names",
        /SPEAKER_nn labels/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["known_speaker_names[]", "agent"],
          ["known_speaker_references[]", "data:text/plain;base64,AAAA"],
        ],
        "known_speaker_references",
        /known_speaker_references\[0\] is not an audio data URL/,
      ],
      [
        [
          ["response_format", "diarized_json"],
          ["known_speaker_names[]", "agent"],
          ["known_speaker_references[]", "data:audio/wav;base64,%%%"],
        ],
        "known_speaker_references",
        /not valid base64/,
      ],
      [
        [
          ["stream", "true"],
          ["response_format", "srt"],
        ],
        "stream",
        /response_format srt cannot be streamed/,
      ],
      [
        [["chunking_strategy", "manual"]],
        "chunking_strategy",
        /chunking_strategy "manual" is not supported: send "auto" or/,
      ],
      [
        [["chunking_strategy[type]", "client_vad"]],
        "chunking_strategy",
        /\(type: Invalid input: expected "server_vad"\)/,
      ],
      [
        [
          ["chunking_strategy[type]", "server_vad"],
          ["chunking_strategy[threshold]", "1.5"],
        ],
        "chunking_strategy",
        /\(threshold: Too big: expected number to be <=1\)/,
      ],
      [
        [
          ["chunking_strategy[type]", "server_vad"],
          ["chunking_strategy[silence_duration_ms]", "soon"],
        ],
        "chunking_strategy",
        /\(silence_duration_ms: Invalid input: expected number, received NaN\)/,
      ],
      [
        [
          ["chunking_strategy[type]", "server_vad"],
          ["chunking_strategy[window]", "3"],
        ],
        "chunking_strategy",
        /\(Unrecognized key: "window"\)/,
      ],
      [[["chunking_strategy[a][b]", "x"]], "chunking_strategy", /chunking_strategy\[a\]\[b\] is not a field/],
      [[["chunking_strategy", "{type: server_vad"]], "chunking_strategy", /not valid JSON/],
    ];
    for (const [entries, param, message] of cases) {
      const wire = refused(entries);
      expect(wire, JSON.stringify(entries)).toMatchObject({
        status: 400,
        retryable: false,
        body: { error: { type: "invalid_request_error", param } },
      });
      expect(wire.body.error.message).toMatch(message);
    }
    // A translation's form has no chunking_strategy: even a malformed one is not read.
    expect(parseSyncRequest(env, fields([["chunking_strategy[a][b]", "x"]]), "translate").format).toBe(
      "json",
    );
    // OpenAI's translations have no diarized_json.
    expect(refused([["response_format", "diarized_json"]], "translate").body.error.param).toBe(
      "response_format",
    );
  });

  it("defaults to json and auto-detect; translations ignore a language", () => {
    expect(parseSyncRequest(env, fields([]), "transcribe").params).toMatchObject({
      language: null,
      context: "",
      task: "transcribe",
      response_format: "json",
    });
    expect(parseSyncRequest(env, fields([["language", "vi"]]), "translate").params).toMatchObject({
      language: null,
      task: "translate",
    });
  });

  it("turns chunking_strategy into the task's chunking: unset one block, auto, server_vad with OpenAI's defaults", () => {
    const chunking = (pairs: [string, string][], task: "transcribe" | "translate" = "transcribe") =>
      parseSyncRequest(env, fields(pairs), task).params.chunking;
    expect(chunking([])).toBe("none");
    expect(chunking([["chunking_strategy", "auto"]])).toBe("auto");
    expect(chunking([["chunking_strategy[type]", "server_vad"]])).toEqual({
      type: "server_vad",
      threshold: 0.5,
      prefix_padding_ms: 300,
      silence_duration_ms: 200,
    });
    expect(
      chunking([
        ["chunking_strategy[type]", "server_vad"],
        ["chunking_strategy[threshold]", "0.7"],
        ["chunking_strategy[silence_duration_ms]", "800"],
      ]),
    ).toEqual({ type: "server_vad", threshold: 0.7, prefix_padding_ms: 300, silence_duration_ms: 800 });
    // a translation's form has no chunking_strategy: one block, like OpenAI's
    expect(chunking([["chunking_strategy", "auto"]], "translate")).toBe("none");
  });

  it("reads a translation's target_language: English leaves the params as before, another is stored lower-case", () => {
    expect(parseSyncRequest(env, fields([["target_language", "en"]]), "translate").params).not.toHaveProperty(
      "target_language",
    );
    expect(parseSyncRequest(env, fields([["target_language", " ES "]]), "translate").params).toMatchObject({
      task: "translate",
      target_language: "es",
    });
    // a transcription has no target: the field is not read
    expect(
      parseSyncRequest(env, fields([["target_language", "es"]]), "transcribe").params,
    ).not.toHaveProperty("target_language");
    const wire = toOpenAIWire(
      thrown(() => parseSyncRequest(env, fields([["target_language", "e"]]), "translate")),
    );
    expect(wire).toMatchObject({
      status: 400,
      body: { error: { param: "target_language", code: "invalid_value" } },
    });
  });

  it("answers 400 naming the field for an unsupported format, granularity or language", () => {
    const format = thrown(() => parseSyncRequest(env, fields([["response_format", "ssa"]]), "transcribe"));
    expect(toOpenAIWire(format)).toMatchObject({
      status: 400,
      retryable: false,
      body: { error: { type: "invalid_request_error", param: "response_format", code: "unsupported_value" } },
    });
    const granularity = thrown(() =>
      parseSyncRequest(env, fields([["timestamp_granularities[]", "char"]]), "transcribe"),
    );
    expect(toOpenAIWire(granularity).body.error.param).toBe("timestamp_granularities");
    const language = thrown(() => parseSyncRequest(env, fields([["language", "Klingon"]]), "transcribe"));
    expect(toOpenAIWire(language)).toMatchObject({ status: 400, body: { error: { param: "language" } } });
    expect(language.message).toMatch(/unsupported language "Klingon"/);
  });

  it("answers 422 naming the field for an array over its bound, counting both spellings", () => {
    const nine: [string, string][] = Array.from({ length: 9 }, (_, i) => [
      i % 2 ? "include" : "include[]",
      "x",
    ]);
    const error = thrown(() => parseSyncRequest(env, fields(nine), "transcribe"));
    expect(toOpenAIWire(error)).toMatchObject({ status: 422, body: { error: { param: "include" } } });
  });

  it("answers 422 for a malformed value", () => {
    const error = thrown(() => parseSyncRequest(env, fields([["temperature", "warm"]]), "transcribe"));
    expect(error.code).toBe("validation_error");
    expect(toOpenAIWire(error)).toMatchObject({
      status: 422,
      body: { error: { type: "invalid_request_error", param: "temperature" } },
    });
  });
});

describe("OpenAI error envelope", () => {
  it("answers for paths under /v1 no other service's router owns", () => {
    expect(envelopeAtPath("/v1")).toBe(openAIEnvelope);
    expect(envelopeAtPath("/v1/audio/nothing-here")).toBe(openAIEnvelope);
    expect(envelopeAtPath("/v1/notes/x/y")).toBe(contentEnvelope);
    expect(envelopeAtPath("/v10/x")).toBe(defaultEnvelope);
    expect(envelopeAtPath("/transcribe/x/y")).toBe(defaultEnvelope);
  });

  it("maps our codes to OpenAI's type, code and retry advice", () => {
    const wire = (error: ApiError) => toOpenAIWire(error);
    expect(wire(new ApiError("unauthorized", "invalid or revoked API key"))).toEqual({
      status: 401,
      retryable: false,
      body: {
        error: {
          message: "invalid or revoked API key",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      },
    });
    expect(wire(new ApiError("rate_limited", "slow down")).body.error).toMatchObject({
      type: "requests",
      code: "rate_limit_exceeded",
    });
    expect(wire(new ApiError("rate_limited", "slow down")).retryable).toBe(true);
    expect(wire(new ApiError("payload_too_large", "too big"))).toMatchObject({
      status: 413,
      retryable: false,
    });
    expect(wire(new ApiError("service_unavailable", "queue down"))).toMatchObject({
      status: 503,
      retryable: true,
      body: { error: { type: "server_error" } },
    });
    const timeout = new OpenAIError("gateway_timeout", "too long", { retryable: false });
    expect(wire(timeout)).toMatchObject({
      status: 504,
      retryable: false,
      body: { error: { type: "server_error" } },
    });
    const invalid = validationError([
      { loc: ["body", "file"], msg: "Field required", type: "missing" },
      { loc: ["body"], msg: "bad", type: "value_error" },
    ]);
    expect(wire(invalid).body.error).toEqual({
      message: "file: Field required; body: bad",
      type: "invalid_request_error",
      param: "file",
      code: null,
    });
  });
});

describe("known speakers", () => {
  it("decodes each reference clip with its trimmed name, in order, only for diarized_json", () => {
    const request = parseSyncRequest(
      env,
      fields([
        ["response_format", "diarized_json"],
        ["known_speaker_names[]", " agent "],
        ["known_speaker_names[]", "customer"],
        ["known_speaker_references[]", "data:audio/wav;base64,AAEC"],
        ["known_speaker_references[]", "data:audio/ogg;codecs=opus;base64,/w=="],
      ]),
      "transcribe",
    );
    expect(request.references).toEqual([
      { name: "agent", contentType: "audio/wav", bytes: Uint8Array.of(0, 1, 2) },
      { name: "customer", contentType: "audio/ogg", bytes: Uint8Array.of(255) },
    ]);
    expect(request.params).not.toHaveProperty("known_speakers");
  });
});
