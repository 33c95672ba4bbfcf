import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError, validationError } from "../../worker/errors.ts";
import { OpenAIError, toOpenAIWire, usesOpenAIEnvelope } from "../../worker/openai/errors.ts";
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
      timestamp_granularities: ["word", "segment", "word", "segment"],
    });
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
      params: {
        model_id: "whisper-base",
        language: "en",
        context: "Voxedge, whisper",
        task: "transcribe",
        response_format: "verbose_json",
        word_timestamps: true,
      },
    });
    const srt = parseSyncRequest(
      env,
      fields([
        ["response_format", "srt"],
        ["timestamp_granularities", "word"],
      ]),
      "transcribe",
    );
    expect(srt.params.word_timestamps).toBe(false);
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

  it("answers 400 naming the field for an unsupported format, granularity or language", () => {
    const format = thrown(() =>
      parseSyncRequest(env, fields([["response_format", "diarized_json"]]), "transcribe"),
    );
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
  it("applies to /v1 and below only", () => {
    expect(usesOpenAIEnvelope("/v1")).toBe(true);
    expect(usesOpenAIEnvelope("/v1/audio/transcriptions")).toBe(true);
    expect(usesOpenAIEnvelope("/v10/x")).toBe(false);
    expect(usesOpenAIEnvelope("/transcribe")).toBe(false);
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
