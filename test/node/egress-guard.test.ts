/**
 * `npm start`'s egress guard (scripts/lib/egress-guard.ts): wrangler dev's workerd reaches private and
 * loopback addresses, so the Worker sends its fetches of clients' URLs through the guard. A
 * public-looking name that resolves to a loopback address (test/helpers/hosts-entry.ts) is refused
 * through the real Worker under wrangler dev, wired as scripts/start.ts wires it, and nothing reaches
 * the server behind the name; an allowlisted host still answers, and the guard passes requests and
 * answers on unchanged (a webhook's POST, a redirect it does not follow).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EGRESS_TARGET_HEADER } from "../../protocol/guarded-fetch.ts";
import { parseAllowlist } from "../../protocol/url-policy.ts";
import { type EgressGuard, startEgressGuard } from "../../scripts/lib/egress-guard.ts";
import { addLoopbackName, type HostsEntry } from "../helpers/hosts-entry.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";

let entry: HostsEntry;
let hits = 0;
let target: Server;
let fixture: Server;
let fixtureOrigin: string;
let guard: EgressGuard;
let worker: LocalPlatform;
let key: string;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

beforeAll(async () => {
  entry = await addLoopbackName();
  target = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": "4" }).end("ID3x");
  });
  await listen(target, 8080, entry.address);
  fixture = createServer((req, res) => {
    if (req.url === "/redirect") return void res.writeHead(302, { Location: "/a.mp3" }).end();
    if (req.url === "/echo") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () =>
        res
          .writeHead(201, { "x-method": req.method ?? "", "x-auth": String(req.headers["x-auth"]) })
          .end(Buffer.concat(chunks)),
      );
      return;
    }
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": "4" }).end("ID3x");
  });
  fixtureOrigin = `http://127.0.0.1:${await listen(fixture, 0, "127.0.0.1")}`;
  const allowlist = new URL(fixtureOrigin).host;
  guard = await startEgressGuard(parseAllowlist(allowlist));
  worker = await LocalPlatform.start({ allowlist: [allowlist], vars: { EGRESS_GUARD_URL: guard.url } });
  key = worker.key;
});

afterAll(async () => {
  await worker?.stop();
  await guard?.close();
  await entry?.remove();
  target?.close();
  fixture?.close();
});

function transcribe(fileUrl: string): Promise<Response> {
  return fetch(`${worker.url}/transcribe`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ file_url: fileUrl }),
  });
}

describe("wrangler dev behind the egress guard", () => {
  it("refuses a file_url whose name resolves to a loopback address; nothing reaches its server", async () => {
    const response = await transcribe(`http://${entry.name}:8080/a.mp3`);
    const body = (await response.json()) as { detail?: string };
    expect([response.status, body.detail]).toEqual([
      400,
      expect.stringMatching(/file_url is not usable: could not reach /),
    ]);
    expect(hits).toBe(0);
  });

  it("still fetches an allowlisted file_url, redirect included", async () => {
    expect((await transcribe(`${fixtureOrigin}/redirect`)).status).toBe(200);
  });
});

describe("the egress guard itself", () => {
  const through = (url: string, init: RequestInit = {}) =>
    fetch(guard.url, { ...init, headers: { ...init.headers, [EGRESS_TARGET_HEADER]: url } });

  it("drops the connection for a name resolving to loopback and for a target the URL policy refuses", async () => {
    await expect(through(`http://${entry.name}:8080/a.mp3`)).rejects.toThrow();
    await expect(through("http://169.254.169.254/latest/meta-data/")).rejects.toThrow();
    await expect(fetch(guard.url)).rejects.toThrow();
    expect(hits).toBe(0);
  });

  it("passes a POST's method, headers and body on, and the answer back, following no redirect", async () => {
    const echoed = await through(`${fixtureOrigin}/echo`, {
      method: "POST",
      headers: { "x-auth": "token-1" },
      body: "payload",
    });
    expect([echoed.status, echoed.headers.get("x-method"), echoed.headers.get("x-auth")]).toEqual([
      201,
      "POST",
      "token-1",
    ]);
    expect(await echoed.text()).toBe("payload");
    const redirect = await through(`${fixtureOrigin}/redirect`, { redirect: "manual" });
    expect([redirect.status, redirect.headers.get("location")]).toEqual([302, "/a.mp3"]);
  });
});
