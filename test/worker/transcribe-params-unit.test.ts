import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveTranscribeParams } from "../../worker/ingest/transcribe-params.ts";

/** The test env with a one-model registry of the given kind. */
function withModel(kind: "local" | "local_base" | "http", endpoint?: string): Env {
  const registry = { default_model: "m1", models: [{ id: "m1", label: "M1", kind, endpoint }] };
  return { ...env, MODEL_REGISTRY: JSON.stringify(registry) };
}

describe("resolveTranscribeParams", () => {
  it("stores the registry's default model, whatever the request named", () => {
    expect(resolveTranscribeParams(env, { language: "en-GB", context: "ctx" })).toEqual({
      model_id: "whisper-base",
      language: "en",
      context: "ctx",
    });
  });

  it("lets the multilingual base model auto-detect", () => {
    expect(
      resolveTranscribeParams(withModel("local_base"), { language: null, context: "" }).language,
    ).toBeNull();
  });

  it("makes a fine-tuned model require a language (400)", () => {
    const fineTuned = withModel("local");
    expect(() => resolveTranscribeParams(fineTuned, { language: "auto", context: "" })).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringMatching(/cannot detect the language/) }),
    );
    expect(() => resolveTranscribeParams(fineTuned, { context: "" })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(resolveTranscribeParams(fineTuned, { language: "vi", context: "" }).language).toBe("vi");
  });

  it("answers 503 when the default model is a remote tier without an endpoint", () => {
    expect(() => resolveTranscribeParams(withModel("http"), { language: "vi", context: "" })).toThrow(
      expect.objectContaining({ status: 503 }),
    );
  });
});
