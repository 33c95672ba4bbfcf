import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEDULED_PATH } from "../../scripts/lib/cron.ts";
import type { TaskStatusResponse } from "../../worker/schemas/tasks.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { writeWav } from "../helpers/wav.ts";
import { speechPcm } from "../native/audio.ts";

/**
 * Task webhooks for real: wrangler dev (Worker, D1, Queue), an inference node with a synthetic model,
 * and a receiver on loopback that verifies every Standard Webhooks signature with the key's secret (as
 * `npm run keys -- webhook-secret` shows it), fails first, answers slowly, redirects, refuses, and a
 * wrangler dev restart between two attempts.
 */

interface Hit {
  path: string;
  id: string;
  verified: boolean;
  auth: string | undefined;
  body: Record<string, unknown>;
}

let dir: string;
let receiver: Server;
let origin: string;
let platform: LocalPlatform;
let apiKey: string;
let secret = "";
const hits: Hit[] = [];
/** What each path answers, attempt by attempt (the last entry repeats); a number of ms delays it. */
const plans: Record<string, (number | { delayMs: number; status: number })[]> = {
  "/flaky": [503, 503, 200],
  "/slow": [{ delayMs: 6000, status: 200 }, 200],
  "/redirect": [302],
  "/refuse": [400],
};
/** /restart answers 503 until wrangler dev was restarted, so only an attempt after it can deliver. */
let restarted = false;

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "voxedge-webhooks-"));
  writeWav(join(dir, "speech.wav"), await speechPcm("Webhooks are delivered at least once."));
  const audio = readFileSync(join(dir, "speech.wav"));
  receiver = createServer(async (request, response) => {
    const path = (request.url ?? "").split("?")[0] ?? "";
    if (path === "/speech.wav") {
      response.writeHead(200, { "content-type": "audio/wav", "content-length": audio.length });
      response.end(request.method === "HEAD" ? undefined : audio);
      return;
    }
    const body = await readBody(request);
    let verified = true;
    try {
      new Webhook(secret).verify(body, request.headers as Record<string, string>);
    } catch {
      verified = false;
    }
    const plan = plans[path] ?? [404];
    if (path !== "/restart" && !plans[path]) {
      response.writeHead(404).end();
      return;
    }
    const count = hits.filter((hit) => hit.path === path).length;
    hits.push({
      path,
      id: String(request.headers["webhook-id"]),
      verified,
      auth: request.headers["x-receiver-token"] as string | undefined,
      body: JSON.parse(body) as Record<string, unknown>,
    });
    const step =
      path === "/restart" ? (restarted ? 200 : 503) : (plan[Math.min(count, plan.length - 1)] ?? 200);
    const { delayMs, status } = typeof step === "number" ? { delayMs: 0, status: step } : step;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (response.destroyed) return;
    response.writeHead(status, status === 302 ? { location: `${origin}/flaky` } : {});
    response.end("ok");
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  platform = await LocalPlatform.start({
    allowlist: [new URL(origin).host],
    testScheduled: true,
    vars: { WEBHOOK_RETRY_BASE_SEC: "1", WEBHOOK_TIMEOUT_SEC: "2" },
  });
  apiKey = platform.key;
  // The key's secret as the operator sees it (made now, before any delivery needs it).
  const out = execFileSync(
    "node_modules/.bin/tsx",
    ["scripts/keys.ts", "webhook-secret", platform.apiKeys[0]?.id ?? "", "--persist-to", platform.state.dir],
    { encoding: "utf8" },
  );
  secret = out.trim().split("\n").at(-1) ?? "";
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await platform.startNode();
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  await new Promise((r) => receiver?.close(r));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${apiKey}`, "content-type": "application/json" });

async function transcribe(path: string): Promise<string> {
  const response = await fetch(`${platform.url}/transcribe`, {
    method: "POST",
    headers: auth(),
    body: JSON.stringify({
      file_url: `${origin}/speech.wav`,
      language: "en",
      webhook_url: `${origin}${path}`,
      webhook_auth_header_name: "X-Receiver-Token",
      webhook_auth_header_value: `token-for${path}`,
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { task_id: string }).task_id;
}

async function poll(taskId: string): Promise<TaskStatusResponse> {
  const response = await fetch(`${platform.url}/transcribe/${taskId}`, { headers: auth() });
  expect(response.status).toBe(200);
  return (await response.json()) as TaskStatusResponse;
}

/** Polls until the task's webhook is delivered or failed (firing the cron sweep when asked). */
async function webhookSettled(taskId: string, sweep = false, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await poll(taskId);
    if (view.webhook_status === "delivered" || view.webhook_status === "failed") return view;
    if (Date.now() > deadline) throw new Error(`webhook of ${taskId} still ${view.webhook_status}`);
    if (sweep) await fetch(new URL(SCHEDULED_PATH, platform.url)).then((r) => r.body?.cancel());
    await new Promise((r) => setTimeout(r, 500));
  }
}

const hitsOf = (path: string) => hits.filter((hit) => hit.path === path);

describe("task webhooks", () => {
  it("delivers a signed event to a receiver that failed twice first, with the same webhook-id", async () => {
    const taskId = await transcribe("/flaky");
    const view = await webhookSettled(taskId);
    expect(view).toMatchObject({
      status: "done",
      webhook_status: "delivered",
      webhook_last_http_status: 200,
    });
    expect(view).not.toHaveProperty("webhook_auth_header_value");
    const flaky = hitsOf("/flaky");
    expect(flaky.length).toBe(3);
    expect(flaky.every((hit) => hit.verified)).toBe(true);
    expect(new Set(flaky.map((hit) => hit.id)).size).toBe(1);
    expect(flaky[0]?.auth).toBe("token-for/flaky");
    expect(flaky[2]?.body).toMatchObject({
      type: "task.done",
      kind: "transcribe",
      task_id: taskId,
      status: "done",
    });
    expect((flaky[2]?.body.result as { text: string }).text).toEqual(expect.any(String));
    expect(flaky[0]?.body).toEqual(flaky[2]?.body);
  });

  it("retries an attempt that answers after the timeout", async () => {
    const taskId = await transcribe("/slow");
    const view = await webhookSettled(taskId);
    expect(view.webhook_status).toBe("delivered");
    expect(hitsOf("/slow").length).toBe(2);
  });

  it("does not follow a redirect and does not retry a 400", async () => {
    const redirected = await transcribe("/redirect");
    const refused = await transcribe("/refuse");
    expect(await webhookSettled(redirected)).toMatchObject({
      webhook_status: "failed",
      webhook_last_http_status: 302,
    });
    expect(await webhookSettled(refused)).toMatchObject({
      webhook_status: "failed",
      webhook_last_http_status: 400,
    });
    expect(hitsOf("/redirect").length).toBe(1);
    expect(hitsOf("/refuse").length).toBe(1);
    // The redirect's target (/flaky) saw only the first test's three attempts.
    expect(hitsOf("/flaky").length).toBe(3);
  });

  it("refuses a webhook_url the SSRF guard refuses, and a reserved header name", async () => {
    for (const body of [
      { webhook_url: "http://169.254.169.254/latest/meta-data" },
      {
        webhook_url: `${origin}/flaky`,
        webhook_auth_header_name: "webhook-signature",
        webhook_auth_header_value: "x",
      },
      {
        webhook_url: `${origin}/flaky`,
        webhook_auth_header_name: "X-Token",
        webhook_auth_header_value: "a\r\nb: c",
      },
    ]) {
      const response = await fetch(`${platform.url}/transcribe`, {
        method: "POST",
        headers: auth(),
        body: JSON.stringify({ file_url: `${origin}/speech.wav`, language: "en", ...body }),
      });
      expect(response.status).toBe(400);
    }
  });

  it("still delivers after wrangler dev restarts between two attempts", async () => {
    const taskId = await transcribe("/restart");
    const deadline = Date.now() + 90_000;
    while (hitsOf("/restart").length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(hitsOf("/restart").length).toBe(1);
    // The retry's Queue message lives in wrangler dev's memory: the restart loses it; D1 keeps the row.
    await platform.stopWorker();
    restarted = true;
    await platform.startWorker();
    const view = await webhookSettled(taskId, true);
    expect(view.webhook_status).toBe("delivered");
    const restart = hitsOf("/restart");
    expect(restart.length).toBeGreaterThanOrEqual(2);
    expect(restart.every((hit) => hit.verified)).toBe(true);
    expect(new Set(restart.map((hit) => hit.id)).size).toBe(1);
  });
});
