/// <reference path="../worker/provided-context.d.ts" />
/**
 * vitest globalSetup of the Worker tests: a real HTTP server on 127.0.0.1 standing in for the hosts a
 * file_url points at (found, missing, private, expired, HEAD refused, huge, redirecting), and a webhook
 * receiver (see WEBHOOK_PATH). Its origin reaches the tests through provide/inject, and the Worker's
 * URL_ALLOWLIST (see vitest.config.mts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

const AUDIO = Buffer.alloc(2048, 7);
const TOO_BIG = 3_000_000_000;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** An answer to a one-byte ranged GET (Range: bytes=0-0) from a file of `total` bytes; else 400. */
function rangedGetOnly(headStatus: number, total: number): Handler {
  return (req, res) => {
    if (req.method === "HEAD") return void res.writeHead(headStatus).end();
    if (req.headers.range !== "bytes=0-0") return void res.writeHead(400).end("expected Range: bytes=0-0");
    res.writeHead(206, { "Content-Range": `bytes 0-0/${total}`, "Content-Length": "1" }).end("x");
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
  "/redirect-loop": (_req, res) => void res.writeHead(302, { Location: "/redirect-loop" }).end(),
  "/redirect-metadata": (_req, res) =>
    void res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" }).end(),
};

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? "/", "http://fixture");
    const webhook = WEBHOOK_PATH.exec(pathname);
    if (webhook?.[1] && webhook[2] && req.method === "POST") {
      return receiveWebhook(req, res, webhook[1].split(",").map(Number), webhook[2]);
    }
    const log = WEBHOOK_LOG_PATH.exec(pathname);
    if (log?.[1]) {
      res.writeHead(200, { "Content-Type": "application/json" });
      return void res.end(JSON.stringify(received.get(log[1]) ?? []));
    }
    const route = ROUTES[pathname];
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("fixtureOrigin", `http://127.0.0.1:${port}`);
  return () => new Promise((resolve) => server.close(() => resolve()));
}
