import { afterEach, describe, expect, it } from "vitest";
import { LibreTranslateTranslator } from "../../inference-node/translate/libretranslate.ts";
import { TranslationError } from "../../inference-node/translate/translator.ts";
import {
  type FakeServer,
  fakeTranslate,
  libreTranslateHandler,
  longVietnamese,
  neverAnswer,
  sendJson,
  startServer,
} from "./translate-fake-servers.ts";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs `fn`, expecting a TranslationError, and returns it. */
async function failure(fn: () => Promise<unknown>): Promise<TranslationError> {
  const err = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TranslationError);
  return err as TranslationError;
}

describe("LibreTranslateTranslator", () => {
  it("POSTs {q, source, target, format, api_key} to {url}/translate and returns translatedText", async () => {
    server = await startServer(libreTranslateHandler({ apiKey: "lt-key" }));
    const mt = new LibreTranslateTranslator({ url: `${server.url}/`, apiKey: "lt-key" });
    expect(mt.model).toBe("libretranslate");

    await expect(mt.translate("Xin chào các bạn.", "vi", "en")).resolves.toBe("Hello everyone.");
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.method).toBe("POST");
    expect(req?.path).toBe("/translate");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.body).toEqual({
      q: "Xin chào các bạn.",
      source: "vi",
      target: "en",
      format: "text",
      api_key: "lt-key",
    });
  });

  it("translates English to Vietnamese and sends no api_key when none is set", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url });
    await expect(mt.translate("Good morning, everyone.", "en", "vi")).resolves.toBe(
      "Chào buổi sáng mọi người.",
    );
    expect(server.requests[0]?.body).toEqual({
      q: "Good morning, everyone.",
      source: "en",
      target: "vi",
      format: "text",
    });
  });

  it("makes no request for blank text or the same language", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url });
    await expect(mt.translate("   ", "vi", "en")).resolves.toBe("");
    await expect(mt.translate("Xin chào", "vi", "vi")).resolves.toBe("Xin chào");
    expect(server.requests).toHaveLength(0);
  });

  it("splits long text at sentence boundaries under the server's char limit and joins the results", async () => {
    server = await startServer(libreTranslateHandler({ charLimit: 2000 }));
    const mt = new LibreTranslateTranslator({ url: server.url });
    const text = longVietnamese(80);
    expect(text.length).toBeGreaterThan(6000);

    const out = await mt.translate(text, "vi", "en");
    const sent = server.requests.map((r) => (r.body as { q: string }).q);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const q of sent) {
      expect(q.length).toBeLessThanOrEqual(2000);
      expect(q).toMatch(/^Đây là câu số \d+ .*hôm nay\.$/u);
    }
    expect(sent.join(" ")).toBe(text);
    expect(out).toBe(sent.map((q) => fakeTranslate(q, "en")).join(" "));
  });

  it("keeps line breaks between chunks", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url, maxChunkChars: 100 });
    const first = longVietnamese(1);
    const second = "Câu thứ hai ở dòng mới.";
    const out = await mt.translate(`${first}\n${second}`, "vi", "en");
    expect(server.requests).toHaveLength(2);
    expect(out).toBe(`${fakeTranslate(first, "en")}\n${fakeTranslate(second, "en")}`);
  });

  it("reports the server's {error} with the status", async () => {
    server = await startServer(libreTranslateHandler({ apiKey: "right" }));
    const mt = new LibreTranslateTranslator({ url: server.url, apiKey: "wrong" });
    const err = await failure(() => mt.translate("Xin chào", "vi", "en"));
    expect(err.code).toBe("http");
    expect(err.status).toBe(403);
    expect(err.backend).toBe("libretranslate");
    expect(err.message).toBe("libretranslate: HTTP 403: Invalid API key");
  });

  it("reports a non-JSON error body as text", async () => {
    server = await startServer((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>502 Bad Gateway</html>");
    });
    const mt = new LibreTranslateTranslator({ url: server.url });
    const err = await failure(() => mt.translate("Xin chào", "vi", "en"));
    expect(err.status).toBe(502);
    expect(err.message).toContain("502 Bad Gateway");
  });

  it("rejects a 200 without translatedText as bad_response", async () => {
    server = await startServer((_req, res) => sendJson(res, 200, { detectedLanguage: "vi" }));
    const mt = new LibreTranslateTranslator({ url: server.url });
    expect((await failure(() => mt.translate("Xin chào", "vi", "en"))).code).toBe("bad_response");
  });

  it("times out a request that never answers", async () => {
    server = await startServer(neverAnswer);
    const mt = new LibreTranslateTranslator({ url: server.url, timeoutMs: 200 });
    const started = Date.now();
    const err = await failure(() => mt.translate("Xin chào", "vi", "en"));
    expect(err.code).toBe("timeout");
    expect(err.message).toBe("libretranslate: timed out after 200 ms");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("stops when the caller aborts, before or during the request", async () => {
    server = await startServer(neverAnswer);
    const mt = new LibreTranslateTranslator({ url: server.url });
    const controller = new AbortController();
    const pending = failure(() => mt.translate("Xin chào", "vi", "en", controller.signal));
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect((await pending).code).toBe("aborted");
    expect(server.requests).toHaveLength(1);

    const err = await failure(() => mt.translate("Xin chào", "vi", "en", AbortSignal.abort()));
    expect(err.code).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });

  it("reports a refused connection as a network error", async () => {
    const closed = await startServer(neverAnswer);
    await closed.close();
    const mt = new LibreTranslateTranslator({ url: closed.url });
    const err = await failure(() => mt.translate("Xin chào", "vi", "en"));
    expect(err.code).toBe("network");
    expect(err.message).toMatch(/^libretranslate: request to http:\/\/127\.0\.0\.1:\d+\/translate failed: /);
  });

  it("lists the server's pairs as API codes and sends the server's own code for each", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url });
    const pairs = await mt.pairs();
    // Esperanto is not a language the API hears: left out; zh-Hans is the API's zh
    expect(pairs).toEqual(
      expect.arrayContaining([
        ["en", "vi"],
        ["en", "zh"],
        ["en", "es"],
        ["vi", "en"],
        ["zh", "en"],
        ["es", "en"],
      ]),
    );
    expect(pairs).toHaveLength(6);
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/languages" });

    await expect(mt.translate("Hello", "en", "zh")).resolves.toBe("<zh-Hans>Hello</zh-Hans>");
    expect(server.requests.at(-1)?.body).toMatchObject({ source: "en", target: "zh-Hans" });
  });

  it("refuses a pair the server does not offer, and unknown codes, without a request", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url });
    await mt.pairs();
    const requests = server.requests.length;
    const err = await failure(() => mt.translate("Hola", "es", "vi"));
    expect(err.code).toBe("unsupported");
    expect(err.message).toMatch(/es → vi is not offered/);
    expect((await failure(() => mt.translate("x", "xx", "en"))).code).toBe("unsupported");
    expect(server.requests).toHaveLength(requests);
  });
});
