/**
 * The LLM backends of scripts and quizzes against a real HTTP server on 127.0.0.1 that speaks the
 * OpenAI chat-completions protocol and answers what each test sets.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { llmConfigFromEnv } from "../../inference-node/content/llm.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { LlmQuizWriter } from "../../inference-node/content/quiz.ts";
import { runContentTask } from "../../inference-node/content/run-content-task.ts";
import { LlmScriptWriter } from "../../inference-node/content/script.ts";
import { splitWords } from "../../inference-node/content/text.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { ENGLISH_NOTE, probe, recordingContext, VIETNAMESE_NOTE } from "./content-helpers.ts";
import { type FakeServer, sendJson, startServer } from "./translate-fake-servers.ts";

let server: FakeServer;
let answer: { status: number; content: string };
const signal = new AbortController().signal;

beforeAll(async () => {
  server = await startServer((req, res) => {
    if (req.path !== "/v1/chat/completions" || req.headers.authorization !== "Bearer sk-llm") {
      return sendJson(res, 401, { error: { message: "Incorrect API key provided" } });
    }
    if (answer.status !== 200) return sendJson(res, answer.status, { error: { message: "overloaded" } });
    const body = req.body as { model: string };
    sendJson(res, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: answer.content }, finish_reason: "stop" }],
    });
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const config = () =>
  llmConfigFromEnv({
    VOXEDGE_LLM_URL: server.url,
    VOXEDGE_LLM_API_KEY: "sk-llm",
    VOXEDGE_LLM_MODEL: "local-model",
  })!;
const lastPrompt = () => {
  const body = server.requests.at(-1)?.body as {
    model: string;
    messages: { role: string; content: string }[];
  };
  return {
    model: body.model,
    system: body.messages[0]?.content ?? "",
    user: body.messages[1]?.content ?? "",
  };
};

describe("LLM script writer", () => {
  it("asks for narration in the voice's language within the budget and holds the answer to it", async () => {
    answer = {
      status: 200,
      content:
        'Sure! ```json\n{"title": "The Mighty Mekong", "narration": "The Mekong feeds sixty million people. Its floods make the delta fertile. Dams now threaten its fish and its sediment, and the sea is rising."}\n```',
    };
    const script = await new LlmScriptWriter(config()).write(
      { note: ENGLISH_NOTE, language: "vi", maxWords: 14 },
      signal,
    );
    const prompt = lastPrompt();
    expect(prompt.model).toBe("local-model");
    expect(prompt.system).toContain("Vietnamese");
    expect(prompt.system).toContain("At most 14 words");
    expect(prompt.user).toContain("giant catfish");
    expect(script).toEqual({
      title: "The Mighty Mekong",
      body: "The Mekong feeds sixty million people. Its floods make the delta fertile.",
      source: "llm",
    });
    expect(splitWords(script.body).length).toBeLessThanOrEqual(14);
  });

  it("fails llm_failed on an HTTP error, on prose without JSON, and when unreachable", async () => {
    const writer = new LlmScriptWriter(config());
    answer = { status: 503, content: "" };
    await expect(
      writer.write({ note: ENGLISH_NOTE, language: "en", maxWords: 50 }, signal),
    ).rejects.toMatchObject({ code: "llm_failed" });
    answer = { status: 200, content: "I cannot help with that." };
    await expect(
      writer.write({ note: ENGLISH_NOTE, language: "en", maxWords: 50 }, signal),
    ).rejects.toMatchObject({ code: "llm_failed" });
    const down = new LlmScriptWriter({ url: "http://127.0.0.1:9", model: "m" });
    await expect(
      down.write({ note: ENGLISH_NOTE, language: "en", maxWords: 50 }, signal),
    ).rejects.toMatchObject({ code: "llm_failed" });
  });
});

describe("LLM quiz writer", () => {
  const question = (options: string[], answer_index = 0) => ({
    question: "Which river?",
    options,
    answer_index,
    explanation: "Because.",
  });

  it("keeps questions whose options are distinct and drops the rest", async () => {
    answer = {
      status: 200,
      content: JSON.stringify({
        questions: [
          question(["Mekong", "Amazon", "Nile", "Danube"]),
          question(["Hà Nội", "Huế", "HA NOI", "Cần Thơ"]),
          question(["6", "3", "9", "12"], 0),
          question(["Laos", "China", "Peru", "Chad"], 1),
        ],
      }),
    };
    const questions = await new LlmQuizWriter(config()).write(
      { note: VIETNAMESE_NOTE, language: "vi", maxQuestions: 5 },
      signal,
    );
    expect(questions.map((q) => q.options[0])).toEqual(["Mekong", "6", "Laos"]);
    expect(lastPrompt().system).toContain("Vietnamese");
  });

  it("fails llm_failed when fewer than three usable questions come back", async () => {
    answer = {
      status: 200,
      content: JSON.stringify({
        questions: [question(["A", "a", "B", "C"]), question(["X", "Y", "Z", "W"])],
      }),
    };
    await expect(
      new LlmQuizWriter(config()).write({ note: ENGLISH_NOTE, language: "en", maxQuestions: 5 }, signal),
    ).rejects.toMatchObject({
      code: "llm_failed",
    });
  });
});

describe("runContentTask with an LLM configured", () => {
  it("narrates the LLM's script", async () => {
    const tmpRoot = await mkdtemp(join(tmpdir(), "content-llm-"));
    answer = {
      status: 200,
      content: '{"title": "Mekong", "narration": "The Mekong is long. It feeds millions of people."}',
    };
    try {
      const result = await runContentTask(
        {
          kind: "shorts",
          params: { note: ENGLISH_NOTE, voice_id: "en-male", clip_duration: 10, is_audio_only: true },
        },
        {
          synthesizer: new EspeakSynthesizer(),
          tools: { ffmpeg: "ffmpeg" },
          llm: config(),
          speeds: new StageSpeeds(),
          tmpRoot,
        },
        recordingContext().ctx,
      );
      expect(result.data).toMatchObject({
        text_source: "llm",
        script: "Mekong. The Mekong is long. It feeds millions of people.",
      });
      expect(probe(result.files[0]!.path).duration).toBeLessThanOrEqual(10.05);
      await result.cleanup();
    } finally {
      await rm(tmpRoot, { recursive: true, force: true });
    }
  });
});
