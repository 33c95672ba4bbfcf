import { describe, expect, it } from "vitest";
import { TranslateResponse } from "../../protocol/translate.ts";
import { ApiError } from "../../worker/errors.ts";
import {
  type TranslationModel,
  translateWithWorkersAi,
  translationCapabilities,
} from "../../worker/translation/workers-ai.ts";
import { call, NODE_TOKEN } from "./helpers.ts";

/**
 * The internal translate route nodes use for Workers AI (VOXEDGE_MT_BACKEND=workers-ai). The local
 * config has no [ai] binding, so the route's own answer here is its 503; the call into the binding is
 * checked through the function the route uses, with a model that records what it is asked.
 */

const node = { authorization: `Bearer ${NODE_TOKEN}`, "content-type": "application/json" };

describe("/internal/v1/translate", () => {
  it("is for nodes only", async () => {
    expect((await call("/internal/v1/translate")).status).toBe(401);
    expect((await call("/internal/v1/translate", { method: "POST", body: "{}" })).status).toBe(401);
  });

  it("answers 503 with a clear reason where the deployment has no Workers AI binding", async () => {
    const info = await call("/internal/v1/translate", { headers: node });
    expect(info.status).toBe(503);
    expect(await info.json()).toEqual({
      detail: expect.stringMatching(/^Workers AI is not bound on this deployment/),
      code: "service_unavailable",
    });
    const translate = await call("/internal/v1/translate", {
      method: "POST",
      headers: node,
      body: JSON.stringify({ text: "Hello", source_lang: "en", target_lang: "fr" }),
    });
    expect(translate.status).toBe(503);
  });

  it("validates the request against the shared schema before anything else (422)", async () => {
    for (const body of [
      { text: "", source_lang: "en", target_lang: "fr" },
      { text: "Hi", source_lang: "en", target_lang: "tlh" },
      { text: "Hi", source_lang: "en" },
    ]) {
      const response = await call("/internal/v1/translate", {
        method: "POST",
        headers: node,
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(422);
    }
  });
});

describe("translateWithWorkersAi", () => {
  function recording(answer: unknown | Error): TranslationModel & { calls: [string, unknown][] } {
    const calls: [string, unknown][] = [];
    return {
      calls,
      run: async (model, input) => {
        calls.push([model, input]);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
  }

  it("runs m2m100 with the language codes it uses and returns its text", async () => {
    const ai = recording({ translated_text: "Sugeng enjing" });
    const out = await translateWithWorkersAi(ai, {
      text: "Good morning",
      source_lang: "en",
      target_lang: "jw",
    });
    expect(TranslateResponse.parse(out)).toEqual({
      translated_text: "Sugeng enjing",
      model: "@cf/meta/m2m100-1.2b",
    });
    expect(ai.calls).toEqual([
      ["@cf/meta/m2m100-1.2b", { text: "Good morning", source_lang: "en", target_lang: "jv" }],
    ]);
  });

  it("turns a failing or empty model answer into a 503, and lists the languages it offers", async () => {
    const failing = await translateWithWorkersAi(recording(new Error("capacity exceeded")), {
      text: "Hi",
      source_lang: "en",
      target_lang: "fr",
    }).catch((e: unknown) => e);
    expect(failing).toBeInstanceOf(ApiError);
    expect(failing).toMatchObject({ status: 503, message: "Workers AI failed: capacity exceeded" });
    const empty = await translateWithWorkersAi(recording({}), {
      text: "Hi",
      source_lang: "en",
      target_lang: "fr",
    }).catch((e: unknown) => e);
    expect(empty).toMatchObject({ status: 503, message: "Workers AI returned no translated_text" });
    const info = translationCapabilities(recording({}));
    expect(info.model).toBe("@cf/meta/m2m100-1.2b");
    expect(info.languages).toEqual(expect.arrayContaining(["en", "vi", "es", "jw", "zh"]));
    expect(() => translationCapabilities(null)).toThrow(/not bound/);
  });
});
