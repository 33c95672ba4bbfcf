import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot, signedInPage, stackInfo } from "./chromium.ts";

/**
 * Nothing the product serves reaches outside the deployment at run time: with every request that does
 * not go to the stack aborted (the network closed) and all requests recorded, /docs still renders the
 * API reference and every console page loads.
 */

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Closes the network to anything but the stack's origin; returns the URLs of every request made. */
async function closeNetwork(context: BrowserContext): Promise<{ all: string[]; refused: string[] }> {
  const origin = new URL(stackInfo().url).origin;
  const seen = { all: [] as string[], refused: [] as string[] };
  context.on("request", (request) => seen.all.push(request.url()));
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    seen.refused.push(url);
    return route.abort("internetdisconnected");
  });
  return seen;
}

/** Requests that left the stack's origin (data: and blob: URLs are the page's own memory). */
const outside = (urls: string[]) => {
  const origin = new URL(stackInfo().url).origin;
  return urls.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin);
};

describe("offline", () => {
  it("/docs renders the API reference from the deployment's own assets", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const requests = await closeNetwork(context);
    const page = await context.newPage();
    await page.goto(`${stackInfo().url}/docs`);
    // Operation summaries come from the OpenAPI document, rendered by the reference UI.
    await page.getByText("Dependency state: recognition engine, live-mic gate, job queue").first().waitFor({
      timeout: 60_000,
    });
    await page.getByText("Voxedge API").first().waitFor();
    await page.waitForLoadState("networkidle");
    await screenshot(page, "docs-offline");
    expect(requests.refused).toEqual([]);
    expect(outside(requests.all)).toEqual([]);
    expect(requests.all).toContain(`${stackInfo().url}/vendor/swagger-ui-bundle.js`);
    expect(requests.all).toContain(`${stackInfo().url}/vendor/swagger-ui.css`);
    await context.close();
  });

  it("every console page loads with nothing fetched from outside", async () => {
    const { context, page } = await signedInPage(browser);
    const requests = await closeNetwork(context);
    const history = (await (
      await fetch(`${stackInfo().url}/history?limit=1&status=done`, {
        headers: { authorization: `Bearer ${stackInfo().key}` },
      })
    ).json()) as { jobs: { task_id: string }[] };
    const jobId = history.jobs[0]?.task_id ?? "none-yet";
    const room = (await (
      await fetch(`${stackInfo().url}/api/v1/session/create`, {
        method: "POST",
        headers: { authorization: `Bearer ${stackInfo().key}`, "content-type": "application/json" },
        body: JSON.stringify({ language: "en", translate_language: "es" }),
      })
    ).json()) as { conversation_id: string };
    for (const path of [
      "/",
      "/history",
      "/live",
      `/jobs/${jobId}`,
      "/translate",
      "/studio",
      `/join/${room.conversation_id}`,
    ]) {
      await page.goto(`${stackInfo().url}${path}`);
      await page.locator("main h1").waitFor();
      await page.waitForLoadState("networkidle");
    }
    expect(requests.refused).toEqual([]);
    expect(outside(requests.all)).toEqual([]);
    await context.close();
  });
});
