/**
 * The one SSRF-guarded fetch (protocol/guarded-fetch.ts) against a real local server, with Node's own
 * fetch sending each hop: redirects followed by hand with the URL policy on every hop, the typed
 * failures the three callers map to their errors, and the bounded body read.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GuardedFetchError,
  type GuardedFetchFailure,
  guardedFetch,
  MAX_REDIRECTS,
  readBounded,
} from "../../protocol/guarded-fetch.ts";
import { parseAllowlist } from "../../protocol/url-policy.ts";

let server: Server;
let origin: string;
let allowlist: ReadonlySet<string>;
const allowlistedSeen: boolean[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "/";
    if (path === "/hop") return void res.writeHead(301, { Location: "/final" }).end();
    if (path === "/final") return void res.writeHead(404).end("missing");
    if (path === "/to-metadata") {
      return void res.writeHead(307, { Location: "http://169.254.169.254/latest/" }).end();
    }
    if (path === "/no-location") return void res.writeHead(302).end();
    if (path === "/loop") return void res.writeHead(302, { Location: "/loop" }).end();
    res.writeHead(200).end(Buffer.alloc(3000, 1));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  allowlist = parseAllowlist(new URL(origin).host);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const send = (url: URL, hop: { allowlisted: boolean }) => {
  allowlistedSeen.push(hop.allowlisted);
  return fetch(url, { redirect: "manual" });
};

async function failureOf(input: string): Promise<GuardedFetchFailure> {
  const error = await guardedFetch(input, send, { allowlist }).catch((caught: unknown) => caught);
  if (!(error instanceof GuardedFetchError)) throw new Error(`expected a GuardedFetchError, got ${error}`);
  return error.failure;
}

describe("guardedFetch", () => {
  it("follows a redirect by hand and resolves with the first answer that is not one, whatever its status", async () => {
    allowlistedSeen.length = 0;
    const { response, url } = await guardedFetch(`${origin}/hop`, send, { allowlist });
    expect([response.status, url.pathname, allowlistedSeen]).toEqual([404, "/final", [true, true]]);
  });

  it("checks the policy on every hop before sending it", async () => {
    expect(await failureOf(`${origin}/to-metadata`)).toMatchObject({
      kind: "refused",
      hop: 1,
      url: "http://169.254.169.254/latest/",
      reason: "address 169.254.169.254 is not public",
    });
    expect(await failureOf("http://10.0.0.1/a.mp3")).toMatchObject({ kind: "refused", hop: 0 });
  });

  it("stops at a redirect without a Location and after MAX_REDIRECTS redirects", async () => {
    expect(await failureOf(`${origin}/no-location`)).toMatchObject({
      kind: "redirect_without_location",
      status: 302,
    });
    expect(await failureOf(`${origin}/loop`)).toEqual({ kind: "too_many_redirects", limit: MAX_REDIRECTS });
  });
});

describe("readBounded", () => {
  it("reads a body under the cap whole and stops one over it", async () => {
    const under = await readBounded((await fetch(`${origin}/body`)).body!, 3000);
    expect(under.ok && under.bytes.byteLength).toBe(3000);
    const over = await readBounded((await fetch(`${origin}/body`)).body!, 2999);
    expect(over).toEqual({ ok: false, over: 3000 });
  });
});
