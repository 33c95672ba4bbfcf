import type { ChildProcess } from "node:child_process";
import { connect as connectTcp } from "node:net";
import OpenAI from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type components, unwrap } from "../../client/index.ts";
import { LIVE_MAX_FRAME_BYTES } from "../../protocol/live.ts";
import { LocalPlatform } from "../helpers/local-platform.ts";
import { speechPcm } from "../native/audio.ts";
import { concat, quiet } from "../node/live-helpers.ts";
import { type LiveClient, openLive } from "./live-client.ts";

/**
 * Live microphone through the whole platform: a `ws` client → wrangler dev (Worker, LiveHub and
 * LiveSession objects) → an inference node process that dialled out to the hub, running the streaming
 * engine on the native addon with the synthetic micro model (the words are noise: protocol and timing
 * are what is checked).
 */

const IDLE_TIMEOUT_MS = 2_000;
let stack: LocalPlatform;
let node: ChildProcess | null = null;
let utterances: Float32Array[];

beforeAll(async () => {
  stack = await LocalPlatform.start({
    allowlist: [],
    vars: { LEASE_TTL_SEC: "30", LIVE_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS) },
  });
  utterances = await Promise.all([
    speechPcm("Hello from the edge."),
    speechPcm("This sentence is spoken by a synthetic voice for testing."),
  ]);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

const auth = () => ({ authorization: `Bearer ${stack.key}` });

type HealthResponse = components["schemas"]["HealthResponse"];

const health = (): Promise<HealthResponse> => unwrap(stack.client.GET("/health"));

/** Polls /health until `ok`; returns how long that took (ms). */
async function healthWithin(ok: (h: HealthResponse) => boolean, timeoutMs: number) {
  const started = performance.now();
  while (!ok(await health())) {
    if (performance.now() - started > timeoutMs)
      throw new Error(`/health condition not met in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return performance.now() - started;
}

async function connect(query = "?language=en"): Promise<LiveClient> {
  const client = await openLive(`${stack.url}/ws${query}`, auth());
  if (typeof client === "number") throw new Error(`/ws answered ${client}`);
  return client;
}

/** Connects once a live engine is registered (refusals for "no engine" are retried). */
async function connectReady(query?: string): Promise<LiveClient> {
  for (let i = 0; i < 120; i++) {
    const client = await connect(query);
    try {
      await client.waitFor("ready", 5_000);
      return client;
    } catch {
      const closed = await client.closeWithin();
      if (!/no streaming engine/.test(closed.reason))
        throw new Error(`refused: ${closed.code} ${closed.reason}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error("no live engine registered within 30 s");
}

describe("live microphone end to end", () => {
  it("refuses with a reason while no engine is connected; /health shows asr_loaded false", async () => {
    expect(await health()).toMatchObject({ asr_loaded: false, busy: false });
    const client = await connect();
    expect(await client.waitFor("error")).toMatchObject({
      message: expect.stringMatching(/no streaming engine/),
    });
    expect(await client.closeWithin()).toMatchObject({
      code: 1013,
      reason: expect.stringMatching(/no streaming engine/),
    });
    node = await stack.startNode();
  });

  it("refuses a missing or bad key with 401 before upgrading (header or api_key query)", async () => {
    expect(await openLive(`${stack.url}/ws`)).toBe(401);
    expect(await openLive(`${stack.url}/ws`, { authorization: "Bearer vx_bogus" })).toBe(401);
    expect(await openLive(`${stack.url}/ws?api_key=vx_bogus`)).toBe(401);
  });

  it("streams speech at real time: ready, interims, finals, end, close 1000; busy follows the session", async () => {
    const client = await connectReady(`?api_key=${encodeURIComponent(stack.key)}&language=en`);
    expect((await health()).busy).toBe(true);
    const [first, second] = utterances as [Float32Array, Float32Array];
    const audio = concat(quiet(300), first, quiet(1200), second, quiet(900));
    const speechEnd = (300 + 1200) / 1000 + (first.length + second.length) / 16_000;
    const sentAt = await client.stream(audio);
    const lastFrameAt = sentAt.at(-1) ?? 0;
    client.sendJson({ type: "end" });
    expect(await client.closeWithin(10_000)).toMatchObject({ code: 1000 });

    const messages = client.received.map((r) => r.message);
    expect(messages[0]?.type).toBe("ready");
    const interims = messages.filter((m) => m.type === "interim");
    const finals = messages.filter((m) => m.type === "final");
    expect(interims.length).toBeGreaterThanOrEqual(2);
    expect(finals.length).toBeGreaterThanOrEqual(2);
    expect(messages.filter((m) => m.type === "error")).toEqual([]);
    for (const f of finals) {
      expect(f).toMatchObject({ language: "en" });
      expect(f.start).toBeLessThan(f.end);
      expect(f.end).toBeLessThanOrEqual(speechEnd + 0.1);
    }
    // finals arrive in order, each after the interims of its utterance
    expect(finals.map((f) => f.start)).toEqual([...finals.map((f) => f.start)].sort((a, b) => a - b));
    const firstFinal = client.received.find((r) => r.message.type === "final");
    expect(firstFinal && firstFinal.at < lastFrameAt).toBe(true); // the first final came while streaming
    expect(await healthWithin((h) => !h.busy, 1_000)).toBeLessThan(1_000);
  });

  it("closes a second client with 1013 and a reason; busy drops within a second after the first leaves", async () => {
    const first = await connectReady();
    const second = await connect();
    expect(await second.waitFor("error")).toMatchObject({
      message: expect.stringMatching(/another live session/),
    });
    expect(await second.closeWithin()).toMatchObject({
      code: 1013,
      reason: expect.stringMatching(/another live session/),
    });
    expect((await health()).busy).toBe(true);
    first.ws.close(1000, "bye");
    expect(await healthWithin((h) => !h.busy, 1_000)).toBeLessThan(1_000);
  });

  it("releases the gate within a second when a client vanishes without a close frame", async () => {
    const client = await connectReady();
    await client.stream(quiet(300));
    client.ws.terminate(); // the TCP connection drops, no close handshake
    expect(await healthWithin((h) => !h.busy, 1_000)).toBeLessThan(1_000);
  });

  it("times out a client that goes silent with its socket open (1001), and releases the gate", async () => {
    const client = await connectReady();
    await client.stream(quiet(200));
    const silentSince = performance.now();
    expect(await client.closeWithin(IDLE_TIMEOUT_MS + 3_000)).toMatchObject({ code: 1001 });
    expect(performance.now() - silentSince).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 100);
    expect(await healthWithin((h) => !h.busy, 1_000)).toBeLessThan(1_000);
  });

  it("closes with 1009 on a frame over 64 KiB", async () => {
    const client = await connectReady();
    client.ws.send(new Uint8Array(LIVE_MAX_FRAME_BYTES + 2));
    expect(await client.closeWithin()).toMatchObject({ code: 1009 });
    expect(await healthWithin((h) => !h.busy, 1_000)).toBeLessThan(1_000);
  });

  it("answers garbage control JSON with an error and keeps streaming", async () => {
    const client = await connectReady();
    client.ws.send("{definitely not json");
    expect(await client.waitFor("error")).toMatchObject({ message: expect.stringMatching(/not valid JSON/) });
    client.sendJson({ type: "config", language: "en" });
    await client.stream(concat(quiet(200), utterances[0] ?? quiet(1), quiet(900)), 2);
    client.sendJson({ type: "end" });
    expect(await client.closeWithin(10_000)).toMatchObject({ code: 1000 });
    expect(client.received.filter((r) => r.message.type === "final").length).toBeGreaterThanOrEqual(1);
  });

  it("speaks OpenAI's Realtime transcription to the official SDK's realtime client", async () => {
    const openai = new OpenAI({ apiKey: stack.key, baseURL: `${stack.url}/v1` });
    const { hostname, port } = new URL(stack.url);
    // The SDK always dials wss://; the local stack serves plain HTTP, so the socket is handed a plain
    // TCP connection (ws's own `createConnection` option). Everything above it is the SDK's.
    const rt = await OpenAIRealtimeWS.create(openai, {
      model: "gpt-4o-transcribe",
      options: { createConnection: () => connectTcp(Number(port), hostname) },
    });
    const events: { type: string; item_id?: string; transcript?: string; delta?: string }[] = [];
    rt.on("event", (event) => events.push(event as (typeof events)[number]));
    const errors: unknown[] = [];
    rt.on("error", (error) => errors.push(error));
    const created = await new Promise((resolve) => rt.once("session.created", resolve));
    expect(created).toMatchObject({ session: { type: "transcription" } });
    rt.send({
      type: "session.update",
      session: {
        type: "transcription",
        audio: {
          input: {
            format: { type: "audio/pcm", rate: 24_000 },
            transcription: { model: "gpt-4o-transcribe", language: "en" },
          },
        },
      },
    });
    const [first, second] = utterances as [Float32Array, Float32Array];
    const pcm24k = to24kPcm16(concat(quiet(300), first, quiet(1200), second, quiet(1500)));
    const chunkBytes = 24_000 * 2 * 0.1; // 100 ms appends at real time
    const started = performance.now();
    for (let i = 0; i * chunkBytes < pcm24k.length; i++) {
      const wait = started + i * 100 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const chunk = pcm24k.subarray(i * chunkBytes, (i + 1) * chunkBytes);
      rt.send({ type: "input_audio_buffer.append", audio: Buffer.from(chunk).toString("base64") });
    }
    const completedType = "conversation.item.input_audio_transcription.completed";
    for (
      let waited = 0;
      events.filter((e) => e.type === completedType).length < 2 && waited < 10_000;
      waited += 50
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    // a manual commit ends the turn at once, mid-speech; the stream goes on after it
    const third = to24kPcm16(concat(quiet(200), first));
    for (let i = 0; i * chunkBytes < third.length; i++) {
      const chunk = third.subarray(i * chunkBytes, (i + 1) * chunkBytes);
      rt.send({ type: "input_audio_buffer.append", audio: Buffer.from(chunk).toString("base64") });
    }
    rt.send({ type: "input_audio_buffer.commit" });
    for (
      let waited = 0;
      events.filter((e) => e.type === completedType).length < 3 && waited < 10_000;
      waited += 50
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    rt.close();
    expect(errors).toEqual([]);
    expect(events.map((e) => e.type)).toContain("session.updated");
    const completed = events.filter((e) => e.type === completedType);
    expect(completed.length).toBeGreaterThanOrEqual(3);
    for (const item of completed) {
      // each item opened with speech_started and was committed before its transcript arrived
      const own = events.filter((e) => e.item_id === item.item_id).map((e) => e.type);
      expect(own[0]).toBe("input_audio_buffer.speech_started");
      expect(own.indexOf("input_audio_buffer.committed")).toBeLessThan(own.indexOf(completedType));
      expect(typeof item.transcript).toBe("string");
    }
    expect(await healthWithin((h) => !h.busy, 3_000)).toBeLessThan(3_000);
  });

  it("refuses again once the node is gone (its hub socket dropped)", async () => {
    node?.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closed = await (await connect()).closeWithin();
    expect(closed).toMatchObject({ code: 1013, reason: expect.stringMatching(/no streaming engine/) });
  });
});

/** 16 kHz float speech as 24 kHz PCM16 bytes (linear interpolation: a test signal, not a resampler). */
function to24kPcm16(samples: Float32Array): Uint8Array {
  const out = new Int16Array(Math.floor((samples.length * 3) / 2));
  for (let i = 0; i < out.length; i++) {
    const at = (i * 2) / 3;
    const base = Math.floor(at);
    const a = samples[base] ?? 0;
    const b = samples[base + 1] ?? a;
    out[i] = Math.max(-32768, Math.min(32767, Math.round((a + (b - a) * (at - base)) * 32767)));
  }
  return new Uint8Array(out.buffer);
}
