import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { stackInfo } from "./chromium.ts";

/**
 * How wrangler dev serves the console beside the API (wrangler.toml [assets], worker/routes/console.ts):
 * asset files straight from web/dist, page navigations to console paths get index.html, and every API
 * route answers exactly as before, also at the two paths the console shares (`/`, `/history`).
 */

const NAVIGATE = {
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
  accept: "text/html,*/*;q=0.8",
};
const url = (path: string) => `${stackInfo().url}${path}`;
const auth = () => ({ authorization: `Bearer ${stackInfo().key}` });

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A GET (or HEAD) with exactly the given headers, as a browser or curl sends them: Node's fetch would
 * replace Sec-Fetch-Mode with its own `cors` and refuses to set Host.
 */
function get(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  const target = new URL(url(path));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: target.hostname, port: target.port, path, headers, method },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const isConsolePage = (answer: Answer) =>
  answer.status === 200 &&
  String(answer.headers["content-type"]).startsWith("text/html") &&
  answer.body.includes('<div id="app">');

describe("console pages", () => {
  it.each([
    "/",
    "/history",
    "/jobs/6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a",
    "/live",
    "/history?status=done&page=2",
    "/translate",
    "/studio",
    "/studio?from=6f1c1c9e",
  ])("a browser navigation to %s gets the console's index.html", async (path) => {
    expect(isConsolePage(await get(path, NAVIGATE))).toBe(true);
  });

  it("serves the built assets: the entry script, the favicon, the API reference bundle", async () => {
    const html = (await get("/", NAVIGATE)).body;
    const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    expect(entry).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    for (const [path, type] of [
      [entry!, "javascript"],
      ["/favicon.svg", "image/svg+xml"],
      ["/vendor/swagger-ui-bundle.js", "javascript"],
      ["/vendor/swagger-ui.css", "text/css"],
    ] as const) {
      const response = await fetch(url(path));
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toContain(type);
    }
  });

  it("gives a join link of an unknown room, to a browser or curl, the console page with 404 and readable words", async () => {
    for (const headers of [NAVIGATE, { "user-agent": "curl/8.5.0", accept: "*/*" }]) {
      const page = await get("/join/2b7e1c4a-9f1d-4d57-8a55-0b7f3c1e2d4a", headers);
      expect(page.status).toBe(404);
      expect(page.headers["content-type"]).toContain("text/html");
      expect(page.body).toContain("<h1>This conversation has ended</h1>");
      expect(page.body).toContain('<script type="module"');
    }
  });

  it("does not give the console to navigations of other paths, or to requests carrying a key", async () => {
    const unknown = await get("/no-such-page", NAVIGATE);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ code: "not_found" });
    const keyed = await get("/history", { ...NAVIGATE, ...auth() });
    expect(keyed.status).toBe(200);
    expect(JSON.parse(keyed.body)).toMatchObject({ jobs: expect.any(Array), total: expect.any(Number) });
    const head = await get("/history", NAVIGATE, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toContain("text/html");
    expect(
      (await get("/history", { ...NAVIGATE, "x-api-key": stackInfo().key })).headers["content-type"],
    ).toContain("application/json");
    // A page's own fetch (mode cors) gets the API.
    expect((await get("/history", { "sec-fetch-mode": "cors", accept: "*/*" })).status).toBe(401);
    // A client without fetch metadata that asks for HTML is a browser too; one that asks for anything is not.
    expect(isConsolePage(await get("/live", { accept: "text/html" }))).toBe(true);
    expect((await get("/live", { accept: "*/*" })).status).toBe(404);
  });
});

describe("the API is unchanged", () => {
  it("GET / is still the JSON API root for API clients", async () => {
    const answer = await get("/", { accept: "*/*" });
    expect(answer.headers["content-type"]).toContain("application/json");
    expect(JSON.parse(answer.body)).toEqual({
      name: "voxedge",
      version: "1.0.0",
      docs: "/docs",
      openapi: "/openapi.json",
    });
  });

  it("every route family still reaches the Worker", async () => {
    expect(JSON.parse((await get("/health", NAVIGATE)).body)).toMatchObject({ status: "ok", busy: false });
    expect((await (await fetch(url("/models"))).json()).models.length).toBeGreaterThan(0);
    const openapi = JSON.parse((await get("/openapi.json", NAVIGATE)).body);
    expect(openapi.paths["/transcribe"]).toBeDefined();
    expect(openapi.paths["/console/dev-key"]).toBeUndefined();

    const unauthenticated: [string, RequestInit][] = [
      ["/history", {}],
      ["/transcribe/abc", {}],
      ["/transcribe", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }],
      ["/transcribe/object", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }],
      ["/uploads/presign", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }],
      ["/ws", {}],
    ];
    for (const [path, init] of unauthenticated) {
      const response = await fetch(url(path), init);
      expect(response.status, path).toBe(401);
      expect(await response.json(), path).toMatchObject({ code: "unauthorized" });
    }
    const openai = await fetch(url("/v1/models"));
    expect(openai.status).toBe(401);
    expect(await openai.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    const internal = await fetch(url("/internal/v1/lease"), { method: "POST", body: "{}" });
    expect(internal.status).toBe(401);
    const media = await get("/media/uploads/6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a/clip.wav", NAVIGATE);
    // The Worker's answer, not the console: no such object.
    expect(media.status).toBe(404);
    expect(JSON.parse(media.body)).toMatchObject({ code: "not_found" });
    const preflight = await fetch(url("/transcribe"), {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("/docs is the reference page, loading its UI from this deployment", async () => {
    const html = (await get("/docs", NAVIGATE)).body;
    expect(html).toContain('<script src="/vendor/swagger-ui-bundle.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/vendor/swagger-ui.css">');
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });
});

describe("the local dev key", () => {
  it("is given to the console's own page on a loopback host, with no CORS grant and no caching", async () => {
    const answer = await get("/console/dev-key", { "sec-fetch-site": "same-origin" });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ key: stackInfo().devKey });
    expect(answer.headers["access-control-allow-origin"]).toBeUndefined();
    expect(answer.headers["cache-control"]).toBe("no-store");
    const port = new URL(url("/")).port;
    expect((await get("/console/dev-key", { host: `localhost:${port}` })).status).toBe(200);
    expect(
      (await get("/console/dev-key", { host: `[::1]:${port}`, origin: `http://[::1]:${port}` })).status,
    ).toBe(200);
  });

  it("is refused to other sites' pages and to requests addressed to a non-loopback name", async () => {
    expect((await get("/console/dev-key", { "sec-fetch-site": "cross-site" })).status).toBe(404);
    expect((await get("/console/dev-key", { "sec-fetch-site": "same-site" })).status).toBe(404);
    expect((await get("/console/dev-key", { origin: "http://evil.example" })).status).toBe(404);
    expect((await get("/console/dev-key", { origin: "http://127.0.0.1:1" })).status).toBe(404);
    // A DNS-rebinding page reaches 127.0.0.1 under its own name.
    const rebound = await get("/console/dev-key", {
      host: "rebind.evil.example",
      "sec-fetch-site": "same-origin",
    });
    expect(rebound.status).toBe(404);
    expect(rebound.body).not.toContain(stackInfo().devKey);
  });
});
