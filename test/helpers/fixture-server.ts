/// <reference path="../worker/provided-context.d.ts" />
/**
 * vitest globalSetup of the Worker tests: a real HTTP server on 127.0.0.1 standing in for the hosts a
 * file_url points at (found, missing, private, expired, HEAD refused, huge, redirecting, and the share
 * hosts of share-link-hosts.ts), a webhook
 * receiver (see WEBHOOK_PATH), and an OpenAI-compatible transcription endpoint for the remote
 * recognition tier (a good one that checks the form it is sent, and ones answering a chosen HTTP
 * status). Its origin reaches the tests through provide/inject, and the Worker's URL_ALLOWLIST (see
 * vitest.config.mts). A second server, the tarpit (see startTarpit), accepts webhooks and never answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { UPSTREAM_KEY_FRAGMENT } from "./fixture-answers.ts";
import { shareLinkRoute } from "./share-link-hosts.ts";

const AUDIO = Buffer.alloc(2048, 7);
const TOO_BIG = 3_000_000_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An answer to a GET of a file's first bytes (Range: bytes=0-N) from a file of `total` bytes; else 400. */
function rangedGetOnly(headStatus: number, total: number): Handler {
  return (req, res) => {
    if (req.method === "HEAD") return void res.writeHead(headStatus).end();
    const last = /^bytes=0-(\d+)$/.exec(req.headers.range ?? "")?.[1];
    if (!last) return void res.writeHead(400).end("expected Range: bytes=0-N");
    const part = AUDIO.subarray(0, Math.min(Number(last) + 1, total));
    res.writeHead(206, {
      "Content-Range": `bytes 0-${part.length - 1}/${total}`,
      "Content-Length": String(part.length),
    });
    res.end(part);
  };
}

/**
 * The webhook receiver: `POST /webhook/<statuses>/<name>` records the request under `<name>` and answers
 * the statuses of the comma-separated list in turn (the last one from then on), e.g. `/webhook/503,200/a`
 * answers 503 then 200. `GET /webhook-log/<name>` returns what `<name>` received, oldest first.
 */
const WEBHOOK_PATH = /^\/webhook\/([0-9,]+)\/([\w-]+)$/;
const WEBHOOK_LOG_PATH = /^\/webhook-log\/([\w-]+)$/;
/** Bytes of one webhook body the receiver keeps; a bigger one is answered 413. */
const MAX_WEBHOOK_BODY = 1 << 20;

interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  answered: number;
}

const received = new Map<string, ReceivedWebhook[]>();

function receiveWebhook(req: IncomingMessage, res: ServerResponse, statuses: number[], name: string): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_WEBHOOK_BODY) chunks.push(chunk);
  });
  req.on("end", () => {
    const log = received.get(name) ?? [];
    const answered = size > MAX_WEBHOOK_BODY ? 413 : (statuses[log.length] ?? statuses.at(-1) ?? 200);
    log.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), answered });
    received.set(name, log);
    res.writeHead(answered).end();
  });
}

const ROUTES: Record<string, Handler> = {
  "/audio.mp3": (req, res) => {
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": String(AUDIO.length) });
    res.end(req.method === "HEAD" ? undefined : AUDIO);
  },
  "/missing": (_req, res) => void res.writeHead(404).end(),
  "/private": (_req, res) => void res.writeHead(403).end(),
  "/expired": (_req, res) => void res.writeHead(410).end(),
  "/empty": (_req, res) => void res.writeHead(200, { "Content-Length": "0" }).end(),
  "/broken": (_req, res) => void res.writeHead(500).end(),
  "/huge": (_req, res) => void res.writeHead(200, { "Content-Length": String(TOO_BIG) }).end(),
  "/no-head": rangedGetOnly(405, 5000),
  "/no-head-huge": rangedGetOnly(501, TOO_BIG),
  // An S3 URL presigned for GET answers HEAD with 403 (the signature covers the method).
  "/signed-get": rangedGetOnly(403, 1234),
  "/redirect": (_req, res) => void res.writeHead(302, { Location: "/audio.mp3" }).end(),
  "/openai/v1/audio/transcriptions": (req, res) => void openAiTranscriptions(req, res),
  "/openai-noisy/v1/audio/transcriptions": (req, res) => void noisyTranscriptions(req, res, "verbose_json"),
  "/openai-json-only/v1/audio/transcriptions": (req, res) => void noisyTranscriptions(req, res, "json"),
  "/redirect-loop": (_req, res) => void res.writeHead(302, { Location: "/redirect-loop" }).end(),
  "/redirect-metadata": (_req, res) =>
    void res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end(),
};

/** The whole body of a request. */
async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * An OpenAI-compatible `POST .../audio/transcriptions`: refuses (400, OpenAI's envelope) a form without
 * `file`, `model` or `response_format=verbose_json`, or one whose bearer is not `Bearer fixture-key`
 * (401); otherwise answers verbose_json whose text names the model, language and prompt it was sent.
 */
async function openAiTranscriptions(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refuse = (status: number, message: string) =>
    void res
      .writeHead(status, { "Content-Type": "application/json" })
      .end(JSON.stringify({ error: { message } }));
  if (req.headers.authorization !== "Bearer fixture-key") return refuse(401, "Incorrect API key provided");
  const form = await new Request("http://fixture/", {
    method: "POST",
    headers: { "content-type": req.headers["content-type"] ?? "" },
    body: await bodyOf(req),
  }).formData();
  const file = form.get("file");
  if (!(file instanceof Blob) || file.size === 0) return refuse(400, "file is required");
  if (form.get("response_format") !== "verbose_json") return refuse(400, "expected verbose_json");
  const model = form.get("model");
  if (typeof model !== "string" || !model) return refuse(400, "model is required");
  const said = `model=${model} language=${form.get("language") ?? "auto"} prompt=${form.get("prompt") ?? ""} bytes=${file.size}`;
  res.writeHead(200, { "Content-Type": "application/json" }).end(
    JSON.stringify({
      task: "transcribe",
      language: "english",
      duration: 4.5,
      text: ` Hello there. ${said}`,
      segments: [
        { id: 0, start: 0, end: 1.5, text: " Hello there." },
        { id: 1, start: 1.5, end: 4.5, text: ` ${said}` },
      ],
    }),
  );
}

/** Raw whisper output as a remote endpoint sends it: a marker, then a phrase looping. */
export const NOISY_SEGMENTS = [
  { start: 0, end: 1, text: " [BLANK_AUDIO]" },
  { start: 1, end: 3, text: " xin chào các bạn." },
  { start: 3, end: 6, text: " Cảm ơn. Cảm ơn. Cảm ơn. Cảm ơn." },
];

/**
 * An endpoint answering NOISY_SEGMENTS (Vietnamese) in one `response_format` only: `verbose_json`
 * (whisper-server) or `json` (text alone, as OpenAI's gpt-4o-transcribe, which refuses verbose_json
 * with a 400).
 */
async function noisyTranscriptions(
  req: IncomingMessage,
  res: ServerResponse,
  format: "verbose_json" | "json",
): Promise<void> {
  const form = await new Request("http://fixture/", {
    method: "POST",
    headers: { "content-type": req.headers["content-type"] ?? "" },
    body: await bodyOf(req),
  }).formData();
  const asked = form.get("response_format");
  const json = (status: number, body: unknown) =>
    void res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  if (asked !== format)
    return json(400, { error: { message: `response_format '${asked}' is not compatible with this model` } });
  const text = NOISY_SEGMENTS.map((s) => s.text).join("");
  if (format === "json") return json(200, { text });
  json(200, { task: "transcribe", language: "vietnamese", duration: 6, text, segments: NOISY_SEGMENTS });
}

/**
 * `/openai-status/<code>/audio/transcriptions`: an endpoint that answers HTTP <code> to everything; its
 * 401 carries a masked key fragment the way OpenAI's does.
 */
function statusEndpoint(pathname: string): Handler | null {
  const code = /^\/openai-status\/(\d{3})\/audio\/transcriptions$/.exec(pathname)?.[1];
  if (!code) return null;
  const message =
    code === "401" ? `Incorrect API key provided: ${UPSTREAM_KEY_FRAGMENT}.` : `fixture says ${code}`;
  return (req, res) => {
    req.resume();
    res
      .writeHead(Number(code), { "Content-Type": "application/json" })
      .end(JSON.stringify({ error: { message } }));
  };
}

/** What the tarpit did for one `<name>`: requests it took (and never answered), and those the sender gave up. */
interface TarpitLog {
  requests: number;
  abandoned: number;
}

const tarpitLogs = new Map<string, TarpitLog>();
const TARPIT_PATH = /^\/tarpit\/([\w-]+)$/;
const TARPIT_LOG_PATH = /^\/tarpit-log\/([\w-]+)$/;

/**
 * A webhook target that never answers, on its own port (a host of its own to the Worker, as a hung
 * receiver elsewhere would be): `POST /tarpit/<name>` is read and left hanging until the sender gives
 * up. `GET /tarpit-log/<name>` on the fixture server counts them.
 */
async function startTarpit(): Promise<ReturnType<typeof createServer>> {
  const tarpit = createServer((req, res) => {
    const name = TARPIT_PATH.exec(new URL(req.url ?? "/", "http://tarpit").pathname)?.[1] ?? "unnamed";
    const log = tarpitLogs.get(name) ?? { requests: 0, abandoned: 0 };
    tarpitLogs.set(name, log);
    log.requests++;
    req.resume();
    res.on("close", () => log.abandoned++);
  });
  tarpit.requestTimeout = 0;
  await new Promise<void>((resolve) => tarpit.listen(0, "127.0.0.1", resolve));
  return tarpit;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tarpit = await startTarpit();
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? "/", "http://fixture");
    const tarpitLog = TARPIT_LOG_PATH.exec(pathname);
    if (tarpitLog?.[1]) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return void res.end(JSON.stringify(tarpitLogs.get(tarpitLog[1]) ?? { requests: 0, abandoned: 0 }));
    }
    const webhook = WEBHOOK_PATH.exec(pathname);
    if (webhook?.[1] && webhook[2] && req.method === "POST") {
      return receiveWebhook(req, res, webhook[1].split(",").map(Number), webhook[2]);
    }
    const log = WEBHOOK_LOG_PATH.exec(pathname);
    if (log?.[1]) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return void res.end(JSON.stringify(received.get(log[1]) ?? []));
    }
    const route = ROUTES[pathname] ?? statusEndpoint(pathname) ?? shareLinkRoute(pathname);
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("fixtureOrigin", `http://127.0.0.1:${port}`);
  project.provide("tarpitOrigin", `http://127.0.0.1:${(tarpit.address() as AddressInfo).port}`);
  return async () => {
    tarpit.closeAllConnections();
    await new Promise((resolve) => tarpit.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  };
}
