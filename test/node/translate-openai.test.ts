import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatTranslator, translationPrompt } from "../../inference-node/translate/openai-chat.ts";
import { TranslationError } from "../../inference-node/translate/translator.ts";
import {
  type FakeServer,
  fakeTranslate,
  longVietnamese,
  neverAnswer,
  openAIChatHandler,
  sendJson,
  startServer,
} from "./translate-fake-servers.ts";

const KEY = "sk-test-123";
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(fn: () => Promise<unknown>): Promise<TranslationError> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TranslationError);
  return err as TranslationError;
}

const translator = (
  s: FakeServer,
  extra: { apiKey?: string; timeoutMs?: number; maxChunkChars?: number } = {},
) => new OpenAIChatTranslator({ url: `${s.url}/v1`, apiKey: KEY, model: "gpt-4o-mini", ...extra });

interface ChatBody {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
}

describe("OpenAIChatTranslator", () => {
  it("POSTs model, system+user messages and temperature 0 with a Bearer key, and returns the content", async () => {
    server = await startServer(openAIChatHandler(KEY));
    const mt = translator(server);
    expect(mt.model).toBe("gpt-4o-mini");

    await expect(mt.translate("Xin chào các bạn.", "vi", "en")).resolves.toBe("Hello everyone.");
    const [req] = server.requests;
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/v1/chat/completions");
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers["content-type"]).toBe("application/json");
    const body = req?.body as ChatBody;
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.temperature).toBe(0);
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[0]?.content).toBe(translationPrompt("vi", "en"));
    expect(body.messages[0]?.content).toContain("from Vietnamese to English");
    expect(body.messages[0]?.content).toMatch(/output only the translation/i);
    expect(body.messages[1]?.content).toBe("Xin chào các bạn.");
  });

  it("translates English to Vietnamese with the prompt turned round", async () => {
    server = await startServer(openAIChatHandler(KEY));
    await expect(translator(server).translate("Good morning, everyone.", "en", "vi")).resolves.toBe(
      "Chào buổi sáng mọi người.",
    );
    expect((server.requests[0]!.body as ChatBody).messages[0]?.content).toContain(
      "from English to Vietnamese",
    );
  });

  it("accepts a base URL with a trailing slash", async () => {
    server = await startServer(openAIChatHandler(KEY));
    const mt = new OpenAIChatTranslator({ url: `${server.url}/v1/`, apiKey: KEY, model: "m" });
    await expect(mt.translate("Hôm nay trời đẹp.", "vi", "en")).resolves.toBe("The weather is nice today.");
  });

  it("reports the API's {error: {message}} with the status", async () => {
    server = await startServer(openAIChatHandler(KEY));
    const err = await failure(() =>
      translator(server!, { apiKey: "sk-wrong" }).translate("Xin chào", "vi", "en"),
    );
    expect(err.code).toBe("http");
    expect(err.status).toBe(401);
    expect(err.message).toBe("openai: HTTP 401: Incorrect API key provided: sk-wr***ng.");
  });

  it("reports rate limiting", async () => {
    server = await startServer((_req, res) =>
      sendJson(res, 429, { error: { message: "Rate limit reached for requests", type: "requests" } }),
    );
    const err = await failure(() => translator(server!).translate("Xin chào", "vi", "en"));
    expect(err.status).toBe(429);
    expect(err.message).toContain("Rate limit reached");
  });

  it("rejects an answer without choices or content as bad_response", async () => {
    server = await startServer((_req, res) =>
      sendJson(
        res,
        200,
        server!.requests.length === 1 ? { choices: [] } : { choices: [{ message: { content: null } }] },
      ),
    );
    expect((await failure(() => translator(server!).translate("Xin chào", "vi", "en"))).code).toBe(
      "bad_response",
    );
    expect((await failure(() => translator(server!).translate("Xin chào", "vi", "en"))).code).toBe(
      "bad_response",
    );
  });

  it("times out and aborts", async () => {
    server = await startServer(neverAnswer);
    const timedOut = await failure(() =>
      translator(server!, { timeoutMs: 150 }).translate("Xin chào", "vi", "en"),
    );
    expect(timedOut.code).toBe("timeout");
    expect(timedOut.message).toBe("openai: timed out after 150 ms");

    const aborted = await failure(() =>
      translator(server!).translate("Xin chào", "vi", "en", AbortSignal.timeout(100)),
    );
    expect(aborted.code).toBe("aborted");
  });

  it("sends long text in sentence-aligned chunks, in order", async () => {
    server = await startServer(openAIChatHandler(KEY));
    const text = longVietnamese(30);
    const out = await translator(server, { maxChunkChars: 1000 }).translate(text, "vi", "en");
    const sent = server.requests.map((r) => (r.body as ChatBody).messages[1]?.content ?? "");
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const chunk of sent) {
      expect(chunk.length).toBeLessThanOrEqual(1000);
      expect(chunk.endsWith("hôm nay.")).toBe(true);
    }
    expect(sent.join(" ")).toBe(text);
    expect(out).toBe(sent.map((c) => fakeTranslate(c, "en")).join(" "));
  });
});
