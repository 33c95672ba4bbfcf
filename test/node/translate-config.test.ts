import { afterEach, describe, expect, it } from "vitest";
import { splitIntoChunks } from "../../inference-node/translate/chunk.ts";
import { createTranslator, translatorConfigFromEnv } from "../../inference-node/translate/config.ts";
import { LibreTranslateTranslator } from "../../inference-node/translate/libretranslate.ts";
import { OpenAIChatTranslator } from "../../inference-node/translate/openai-chat.ts";
import { translationTarget } from "../../protocol/translate.ts";
import { type FakeServer, libreTranslateHandler, startServer } from "./translate-fake-servers.ts";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createTranslator", () => {
  it("returns null for backend none", () => {
    expect(createTranslator({ backend: "none" })).toBeNull();
  });

  it("builds the LibreTranslate backend, which then translates over HTTP", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = createTranslator({ backend: "libretranslate", url: server.url });
    expect(mt).toBeInstanceOf(LibreTranslateTranslator);
    expect(mt?.model).toBe("libretranslate");
    await expect(mt?.translate("Xin chào các bạn.", "vi", "en")).resolves.toBe("Hello everyone.");
  });

  it("builds the OpenAI chat backend with the model id as mt_model", () => {
    const mt = createTranslator({
      backend: "openai",
      url: "https://api.openai.com/v1",
      apiKey: "sk-x",
      model: "gpt-4o-mini",
    });
    expect(mt).toBeInstanceOf(OpenAIChatTranslator);
    expect(mt?.model).toBe("gpt-4o-mini");
  });

  it("rejects invalid configs", () => {
    expect(() => createTranslator({ backend: "libretranslate", url: "not a url" })).toThrow();
    expect(() => createTranslator({ backend: "libretranslate", url: "ftp://example.com" })).toThrow();
    expect(() =>
      createTranslator({ backend: "openai", url: "https://api.openai.com/v1", model: "m" } as never),
    ).toThrow();
    expect(() =>
      createTranslator({ backend: "openai", url: "https://api.openai.com/v1", apiKey: "k", model: "" }),
    ).toThrow();
    expect(() => createTranslator({ backend: "deepl" } as never)).toThrow();
    expect(() =>
      createTranslator({ backend: "workers-ai", url: "http://127.0.0.1:8787" } as never),
    ).toThrow();
    expect(() =>
      createTranslator({
        backend: "openai",
        url: "https://api.openai.com/v1",
        apiKey: "k",
        model: "m",
        languages: "en,klingon",
      }),
    ).toThrow(/unknown language code/);
  });

  it("offers every direction between the configured languages for chat and Workers AI backends", async () => {
    const chat = createTranslator({
      backend: "openai",
      url: "https://api.openai.com/v1",
      apiKey: "k",
      model: "m",
      languages: "en, vi,es",
    });
    expect(await chat?.pairs()).toEqual([
      ["en", "vi"],
      ["en", "es"],
      ["vi", "en"],
      ["vi", "es"],
      ["es", "en"],
      ["es", "vi"],
    ]);
    expect(
      createTranslator({ backend: "workers-ai", url: "http://127.0.0.1:8787", token: "node-token-1" })?.model,
    ).toBe("@cf/meta/m2m100-1.2b");
  });
});

describe("translatorConfigFromEnv", () => {
  it("reads VOXEDGE_MT_* and defaults to none", () => {
    expect(createTranslator(translatorConfigFromEnv({}))).toBeNull();
    const mt = createTranslator(
      translatorConfigFromEnv({
        VOXEDGE_MT_BACKEND: "openai",
        VOXEDGE_MT_URL: "http://127.0.0.1:8000/v1",
        VOXEDGE_MT_API_KEY: "k",
        VOXEDGE_MT_MODEL: "qwen2.5-7b-instruct",
        VOXEDGE_MT_TIMEOUT_MS: "5000",
      }),
    );
    expect(mt?.model).toBe("qwen2.5-7b-instruct");
    expect(
      createTranslator(
        translatorConfigFromEnv({
          VOXEDGE_MT_BACKEND: "libretranslate",
          VOXEDGE_MT_URL: "http://lt:5000",
          VOXEDGE_MT_API_KEY: "",
        }),
      )?.model,
    ).toBe("libretranslate");
    expect(
      createTranslator(
        translatorConfigFromEnv({ VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: "http://127.0.0.1:2737" }),
      )?.model,
    ).toBe("apertium");
  });

  it("points workers-ai at the node's own Worker with its NODE_TOKEN", () => {
    expect(
      translatorConfigFromEnv(
        { VOXEDGE_MT_BACKEND: "workers-ai", VOXEDGE_MT_LANGUAGES: "en,fr" },
        { workerUrl: "http://127.0.0.1:8787", token: "node-token-1" },
      ),
    ).toEqual({
      backend: "workers-ai",
      url: "http://127.0.0.1:8787",
      token: "node-token-1",
      languages: "en,fr",
    });
    // other backends never get the node token
    expect(
      translatorConfigFromEnv(
        { VOXEDGE_MT_BACKEND: "apertium", VOXEDGE_MT_URL: "http://127.0.0.1:2737" },
        { workerUrl: "http://127.0.0.1:8787", token: "node-token-1" },
      ),
    ).toEqual({ backend: "apertium", url: "http://127.0.0.1:2737" });
  });
});

describe("translationTarget", () => {
  it("pairs Vietnamese with English only", () => {
    expect(translationTarget("vi")).toBe("en");
    expect(translationTarget("en")).toBe("vi");
    expect(translationTarget("en-US")).toBe("vi");
    expect(translationTarget("Vietnamese")).toBe("en");
    expect(translationTarget("ja")).toBeNull();
    expect(translationTarget("zh")).toBeNull();
    expect(translationTarget("")).toBeNull();
  });
});

describe("splitIntoChunks", () => {
  it("packs whole sentences up to the limit and keeps the separators", () => {
    expect(splitIntoChunks("Một câu. Hai câu. Ba câu.", 18)).toEqual([
      { text: "Một câu. Hai câu.", before: "" },
      { text: "Ba câu.", before: " " },
    ]);
    expect(splitIntoChunks("  Một câu.\n\nHai câu?  ", 9)).toEqual([
      { text: "Một câu.", before: "" },
      { text: "Hai câu?", before: "\n\n" },
    ]);
  });

  it("keeps a short text whole and gives nothing for blank text", () => {
    expect(splitIntoChunks("Xin chào. Tạm biệt.", 2000)).toEqual([
      { text: "Xin chào. Tạm biệt.", before: "" },
    ]);
    expect(splitIntoChunks(" \n ", 10)).toEqual([]);
  });

  it("does not split after abbreviations-like dots without a following space, or inside numbers", () => {
    expect(splitIntoChunks("Giá 3.5 triệu.Xem amara.org nhé.", 20).map((c) => c.text)).toEqual([
      "Giá 3.5 triệu.Xem",
      "amara.org nhé.",
    ]);
  });

  it("cuts an over-long sentence at spaces, and an over-long word by characters", () => {
    const chunks = splitIntoChunks("một hai ba bốn năm sáu bảy tám", 10);
    expect(chunks.map((c) => c.text)).toEqual(["một hai ba", "bốn năm", "sáu bảy", "tám"]);
    expect(chunks.every((c) => c.text.length <= 10)).toBe(true);
    expect(splitIntoChunks("abcdefghijkl", 5).map((c) => c.text)).toEqual(["abcde", "fghij", "kl"]);
  });

  it("splits after CJK and closing-quote sentence ends", () => {
    expect(splitIntoChunks("“Xong rồi.” Đi thôi!", 12).map((c) => c.text)).toEqual([
      "“Xong rồi.”",
      "Đi thôi!",
    ]);
  });
});
