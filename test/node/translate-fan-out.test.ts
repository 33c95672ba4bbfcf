import { afterEach, describe, expect, it } from "vitest";
import { logger } from "../../inference-node/logger.ts";
import { LatencyMeter, translateInto } from "../../inference-node/translate/fan-out.ts";
import { LibreTranslateTranslator } from "../../inference-node/translate/libretranslate.ts";
import { MtStatus } from "../../inference-node/translate/mt-status.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const quietLogger = logger.child({}, { level: "silent" });
const delayed = (ms: number) =>
  startServer(async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    libreTranslateHandler()(req, res);
  });

describe("LatencyMeter", () => {
  it("tries the first call, then follows a moving average against the 150 ms budget", () => {
    const meter = new LatencyMeter();
    expect(meter.fastEnough()).toBe(true);
    meter.record(400);
    expect(meter.averageMs).toBe(400);
    expect(meter.fastEnough()).toBe(false);
    for (let i = 0; i < 10; i++) meter.record(20);
    expect(meter.averageMs).toBeLessThan(150);
    expect(meter.fastEnough()).toBe(true);
  });
});

describe("translateInto", () => {
  it("translates once per distinct target, passes the source language through, and times real calls", async () => {
    server = await startServer(libreTranslateHandler());
    const mt = new LibreTranslateTranslator({ url: server.url });
    const meter = new LatencyMeter();
    const out = await translateInto(mt, meter, "Hello", "en", ["vi", "es", "vi", "en"]);
    expect(out).toEqual({
      translations: { vi: "<vi>Hello</vi>", es: "<es>Hello</es>", en: "Hello" },
      errors: [],
    });
    expect(server.requests.filter((r) => r.path === "/translate")).toHaveLength(2);
    expect(meter.averageMs).not.toBeNull();
  });

  it("lists failing targets instead of throwing, and a missing translator fails every other target", async () => {
    server = await startServer((req, res) => {
      const target = (req.body as { target?: string }).target;
      if (target === "es") return sendJson(res, 500, { error: "model crashed" });
      libreTranslateHandler()(req, res);
    });
    const mt = new LibreTranslateTranslator({ url: server.url });
    const seen: string[] = [];
    const out = await translateInto(mt, new LatencyMeter(), "Hi", "en", ["es", "vi"], undefined, (t) =>
      seen.push(t),
    );
    expect(out).toEqual({ translations: { vi: "<vi>Hi</vi>" }, errors: ["es"] });
    expect(seen).toEqual(["es"]);
    expect(await translateInto(null, new LatencyMeter(), "Hi", "en", ["en", "es"])).toEqual({
      translations: { en: "Hi" },
      errors: ["es"],
    });
  });

  it("marks a slow backend as too slow for interims", async () => {
    server = await delayed(200);
    const mt = new LibreTranslateTranslator({ url: server.url });
    const meter = new LatencyMeter();
    await translateInto(mt, meter, "Hello", "en", ["vi"]);
    expect(meter.averageMs).toBeGreaterThanOrEqual(190);
    expect(meter.fastEnough()).toBe(false);
  });
});

describe("MtStatus", () => {
  it("reports the backend's pairs once it answers, and not loaded while it does not", async () => {
    server = await startServer(libreTranslateHandler());
    const up = new MtStatus(new LibreTranslateTranslator({ url: server.url }), quietLogger);
    await up.start();
    expect(up.health.mt_loaded).toBe(true);
    expect(up.health.mt_model).toBe("libretranslate");
    expect(up.health.mt_pairs).toContainEqual(["en", "vi"]);
    up.stop();

    const down = new MtStatus(new LibreTranslateTranslator({ url: "http://127.0.0.1:9" }), quietLogger);
    await down.start();
    expect(down.health).toEqual({ mt_loaded: false, mt_model: "libretranslate", mt_pairs: [] });
    down.stop();
    expect(new MtStatus(null, quietLogger).health).toEqual({ mt_loaded: false, mt_model: "", mt_pairs: [] });
  });
});
