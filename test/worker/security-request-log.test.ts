/**
 * Query strings are never logged: a socket's `api_key` or `token` (and any other query value) stays out
 * of the request log, whatever the route answers.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../worker/app.ts";
import { createKey } from "./helpers.ts";

afterEach(() => vi.restoreAllMocks());

/** The log lines (console.log, .warn, .error) written while the app answers `path`. */
async function logsOf(path: string, headers: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  for (const level of ["log", "warn", "error"] as const) vi.spyOn(console, level).mockImplementation(capture);
  const ctx = createExecutionContext();
  await app.fetch(new Request(`http://voxedge.test${path}`, { headers }), env, ctx);
  await waitOnExecutionContext(ctx);
  vi.restoreAllMocks();
  return lines;
}

describe("the request log", () => {
  it("logs the path of a socket handshake without its query string (key, token or anything else)", async () => {
    const { key } = await createKey("log-redaction");
    const cases = [
      `/ws?language=en&api_key=${key}`, // accepted key, no upgrade: 400
      "/ws?token=vxt1.key_x.live.9999999999.nonce.sig", // refused token: 401
      `/api/v1/ws/single?api_key=${key}&marker=q-secret`,
      "/history?limit=5&marker=q-secret", // a REST route without a key: 401
      "/no-such-route?marker=q-secret", // 404
    ];
    for (const path of cases) {
      const lines = await logsOf(path, { upgrade: path.includes("api_key") ? "" : "websocket" });
      const requestLines = lines.filter((line) => line.includes('"request_id"'));
      expect(requestLines, path).toHaveLength(1);
      expect(JSON.parse(requestLines[0] as string).path, path).toBe(new URL(path, "http://x").pathname);
      for (const line of lines) {
        expect(line, path).not.toContain("?");
        expect(line, path).not.toContain(key);
        expect(line, path).not.toContain("q-secret");
        expect(line, path).not.toContain("vxt1");
      }
    }
  });
});
