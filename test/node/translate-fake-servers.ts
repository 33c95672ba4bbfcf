/**
 * Real HTTP servers on 127.0.0.1 (random port) that speak the LibreTranslate and OpenAI
 * chat-completions protocols, record what they receive, and translate with a tiny phrase table.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeServer {
  /** http://127.0.0.1:PORT */
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export type Handler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export async function startServer(handler: Handler): Promise<FakeServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // keep the raw text
    }
    const received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
    requests.push(received);
    await handler(received, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const PHRASES: Record<string, string> = {
  "Xin chào các bạn.": "Hello everyone.",
  "Hôm nay trời đẹp.": "The weather is nice today.",
  "Good morning, everyone.": "Chào buổi sáng mọi người.",
};

/** The fake translation: the phrase table, else the text tagged with the target language. */
export function fakeTranslate(text: string, target: string): string {
  return PHRASES[text] ?? `<${target}>${text}</${target}>`;
}

export interface LibreOptions {
  /** Require this api_key (403 otherwise), like a server run with --api-keys. */
  apiKey?: string;
  /** Reject longer q with 400, like --char-limit. */
  charLimit?: number;
}

/** What the fake LibreTranslate server lists at GET /languages (LibreTranslate's own codes). */
export const LIBRE_LANGUAGES = [
  { code: "en", name: "English", targets: ["vi", "zh-Hans", "es"] },
  { code: "vi", name: "Vietnamese", targets: ["en"] },
  { code: "zh-Hans", name: "Chinese (Simplified)", targets: ["en"] },
  { code: "es", name: "Spanish", targets: ["en"] },
  { code: "eo", name: "Esperanto", targets: ["en"] },
];

/**
 * A LibreTranslate server: GET /languages → [{code, name, targets}];
 * POST /translate {q, source, target, format, api_key?} → {translatedText}.
 */
export function libreTranslateHandler(options: LibreOptions = {}): Handler {
  return (req, res) => {
    if (req.method === "GET" && req.path === "/languages") return sendJson(res, 200, LIBRE_LANGUAGES);
    if (req.method !== "POST" || req.path !== "/translate") return sendJson(res, 404, { error: "Not Found" });
    const body = req.body as { q?: string; source?: string; target?: string; api_key?: string };
    if (options.apiKey && body.api_key !== options.apiKey) {
      return sendJson(res, 403, { error: "Invalid API key" });
    }
    if (typeof body.q !== "string" || !body.source || !body.target) {
      return sendJson(res, 400, { error: "Invalid request: missing q parameter" });
    }
    if (options.charLimit && body.q.length > options.charLimit) {
      return sendJson(res, 400, {
        error: `Invalid request: request (${body.q.length}) exceeds text limit (${options.charLimit})`,
      });
    }
    sendJson(res, 200, { translatedText: fakeTranslate(body.q, body.target) });
  };
}

/** An OpenAI-compatible server: POST /v1/chat/completions with a Bearer key. */
export function openAIChatHandler(apiKey: string): Handler {
  return (req, res) => {
    if (req.method !== "POST" || req.path !== "/v1/chat/completions") {
      return sendJson(res, 404, { error: { message: "Not found", type: "invalid_request_error" } });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, {
        error: {
          message: "Incorrect API key provided: sk-wr***ng.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      });
    }
    const body = req.body as { model: string; messages: { role: string; content: string }[] };
    const system = body.messages.find((m) => m.role === "system")?.content ?? "";
    const user = body.messages.find((m) => m.role === "user")?.content ?? "";
    const target = /to Vietnamese/.test(system) ? "vi" : "en";
    sendJson(res, 200, {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_760_000_000,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: ` ${fakeTranslate(user, target)}\n` },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
  };
}

/** A handler that never answers (for timeouts and aborts); the server's close() ends the socket. */
export const neverAnswer: Handler = () => {};

/** Long Vietnamese text of `sentences` distinct sentences. */
export function longVietnamese(sentences: number): string {
  return Array.from(
    { length: sentences },
    (_, i) => `Đây là câu số ${i + 1} trong bản ghi dài, nói về thời tiết và giá cả ở Hà Nội hôm nay.`,
  ).join(" ");
}
