import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, createKey } from "./helpers.ts";
import { FakeNode, frameGap, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";

/**
 * /v1/realtime through the Worker, the LiveHub and a LiveSession in the realtime dialect, with a fake
 * engine on the internal side: OpenAI's transcription events out of the engine's interims and finals,
 * 24 kHz appends resampled to the engine's 16 kHz, manual commits, errors, both wire generations and
 * both ways to authenticate.
 */

type Event = Record<string, unknown> & { type: string };

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("realtime")).key;
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function realtime(query = "?model=gpt-4o-transcribe", headers?: Record<string, string>) {
  const { socket, response } = await upgrade(
    `/v1/realtime${query}`,
    headers ?? { authorization: `Bearer ${key}` },
  );
  if (!socket) throw new Error(`/v1/realtime answered ${response.status}: ${await response.text()}`);
  open.push(socket);
  return { socket, response };
}

/** `ms` of 24 kHz PCM16 (a 440 Hz tone) as base64, as the SDK's users send it. */
function tone24k(ms: number): string {
  const samples = new Int16Array((24_000 * ms) / 1000);
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24_000));
  return btoa(String.fromCharCode(...new Uint8Array(samples.buffer)));
}

const event = (socket: TestSocket) => socket.json<Event>();

async function opened(query?: string) {
  node = await FakeNode.connect("engine", 2);
  const { socket: client } = await realtime(query);
  const { session } = await node.acceptAssignment();
  return { client, session };
}

describe("realtime transcription: the GA wire", () => {
  it("greets with session.created, takes session.update, and turns interims and finals into items", async () => {
    const { client, session } = await opened();
    const created = await event(client);
    expect(created).toMatchObject({
      type: "session.created",
      session: {
        type: "transcription",
        audio: {
          input: { format: { type: "audio/pcm", rate: 24_000 }, turn_detection: { type: "server_vad" } },
        },
      },
    });
    expect(await session.json()).toEqual({ type: "config", language: "auto" });

    client.send({
      type: "session.update",
      session: {
        type: "transcription",
        audio: { input: { transcription: { model: "gpt-4o-transcribe", language: "vi" } } },
      },
    });
    expect(await event(client)).toMatchObject({
      type: "session.updated",
      session: { audio: { input: { transcription: { model: "gpt-4o-transcribe", language: "vi" } } } },
    });
    expect(await session.json()).toEqual({ type: "config", language: "vi" });

    // 500 ms at 24 kHz in 20 ms appends reach the engine as about 500 ms at 16 kHz
    for (let i = 0; i < 25; i++) client.send({ type: "input_audio_buffer.append", audio: tone24k(20) });
    let bytes = 0;
    while (bytes < 15_900) bytes += ((await session.next()) as ArrayBuffer).byteLength;
    expect(bytes).toBeLessThanOrEqual(16_000); // 8 000 samples at most; the filter holds back its last 12 inputs

    session.send({ type: "interim", text: "xin", start: 0.5, end: 0.9, utterance_id: "u1", language: "vi" });
    const started = await event(client);
    expect(started).toMatchObject({ type: "input_audio_buffer.speech_started", audio_start_ms: 500 });
    const itemId = started.item_id as string;
    expect(await event(client)).toMatchObject({
      type: "conversation.item.input_audio_transcription.delta",
      item_id: itemId,
      content_index: 0,
      delta: "xin",
    });
    session.send({
      type: "interim",
      text: "xin chào",
      start: 0.5,
      end: 1.2,
      utterance_id: "u1",
      language: "vi",
    });
    expect(await event(client)).toMatchObject({ item_id: itemId, delta: " chào" });
    session.send({
      type: "final",
      text: "Xin chào.",
      start: 0.5,
      end: 1.5,
      language: "vi",
      utterance_id: "u1",
    });
    // the final rewrote the settled text (case, punctuation): no delta; the completed text is authoritative
    expect(await event(client)).toMatchObject({
      type: "input_audio_buffer.speech_stopped",
      audio_end_ms: 1500,
      item_id: itemId,
    });
    expect(await event(client)).toMatchObject({
      type: "input_audio_buffer.committed",
      item_id: itemId,
      previous_item_id: null,
    });
    expect(await event(client)).toMatchObject({
      type: "conversation.item.input_audio_transcription.completed",
      item_id: itemId,
      content_index: 0,
      transcript: "Xin chào.",
      usage: { type: "duration", seconds: 1 },
    });

    session.send({
      type: "final",
      text: "Tạm biệt.",
      start: 2,
      end: 2.8,
      language: "vi",
      utterance_id: "u2",
    });
    const second = await event(client);
    expect(second).toMatchObject({ type: "input_audio_buffer.speech_started", audio_start_ms: 2000 });
    expect(second.item_id).not.toBe(itemId);
    expect(await event(client)).toMatchObject({ delta: "Tạm biệt." });
    expect(await event(client)).toMatchObject({ type: "input_audio_buffer.speech_stopped" });
    expect(await event(client)).toMatchObject({
      type: "input_audio_buffer.committed",
      previous_item_id: itemId,
    });
    expect(await event(client)).toMatchObject({ transcript: "Tạm biệt." });
  });

  it("commits by hand: too little audio is an error; the engine ends the turn, or an empty item", async () => {
    const { client, session } = await opened();
    await event(client); // session.created
    await session.json(); // config
    client.send({ type: "input_audio_buffer.append", audio: tone24k(40) });
    await frameGap();
    client.send({ type: "input_audio_buffer.commit", event_id: "evt_1" });
    expect(await event(client)).toMatchObject({
      type: "error",
      error: {
        type: "invalid_request_error",
        code: "input_audio_buffer_commit_empty",
        event_id: "evt_1",
        message: expect.stringMatching(/buffer too small.*at least 100ms.*40ms/),
      },
    });
    client.send({ type: "input_audio_buffer.append", audio: tone24k(200) });
    await frameGap();
    client.send({ type: "input_audio_buffer.commit" });
    let message = await session.next();
    while (typeof message !== "string") message = await session.next();
    expect(JSON.parse(message)).toEqual({ type: "commit" });
    session.send({ type: "final", text: "Hi.", start: 0, end: 0.24, language: "en", utterance_id: "u9" });
    await frameGap();
    session.send({ type: "committed" });
    const types: string[] = [];
    for (let i = 0; i < 5; i++) types.push((await event(client)).type);
    expect(types).toEqual([
      "input_audio_buffer.speech_started",
      "conversation.item.input_audio_transcription.delta",
      "input_audio_buffer.speech_stopped",
      "input_audio_buffer.committed",
      "conversation.item.input_audio_transcription.completed",
    ]);

    // silence committed: the engine ends no utterance, the client still gets its item, empty
    client.send({ type: "input_audio_buffer.append", audio: tone24k(150) });
    await frameGap();
    client.send({ type: "input_audio_buffer.commit" });
    message = await session.next();
    while (typeof message !== "string") message = await session.next();
    session.send({ type: "committed" });
    expect(await event(client)).toMatchObject({ type: "input_audio_buffer.committed" });
    expect(await event(client)).toMatchObject({
      type: "conversation.item.input_audio_transcription.completed",
      transcript: "",
    });

    client.send({ type: "input_audio_buffer.clear" });
    expect(await event(client)).toMatchObject({ type: "input_audio_buffer.cleared" });
  });

  it("answers what it cannot take with OpenAI's error events and keeps the session", async () => {
    const { client } = await opened();
    await event(client);
    const refusals: [unknown, Record<string, unknown>][] = [
      [new Uint8Array(320).buffer, { message: expect.stringMatching(/input_audio_buffer.append/) }],
      ["not json", { code: "invalid_event" }],
      [{ type: "response.create" }, { code: "invalid_event" }],
      [{ type: "session.update", session: { type: "realtime" } }, { param: "session.type" }],
      [
        {
          type: "session.update",
          session: { type: "transcription", audio: { input: { format: { type: "audio/pcmu" } } } },
        },
        { param: "session.audio.input.format" },
      ],
      [
        {
          type: "session.update",
          session: { type: "transcription", include: ["item.input_audio_transcription.logprobs"] },
        },
        { param: "session.include" },
      ],
      [
        {
          type: "session.update",
          session: { type: "transcription", audio: { input: { transcription: { language: "klingon" } } } },
        },
        { param: "session.audio.input.transcription.language" },
      ],
      [{ type: "input_audio_buffer.append", audio: "***" }, { param: "audio" }],
      [{ type: "input_audio_buffer.append", audio: "AA==" }, { param: "audio" }], // one byte: half a sample
      [{ type: "input_audio_buffer.append", audio: "A".repeat(100_000) }, { code: "event_too_large" }],
    ];
    for (const [sent, error] of refusals) {
      client.send(sent);
      expect(await event(client)).toMatchObject({ type: "error", error });
    }
    client.send({ type: "input_audio_buffer.clear" });
    expect(await event(client)).toMatchObject({ type: "input_audio_buffer.cleared" });
  });

  it("refuses with an error event and 1013 while no engine is connected", async () => {
    const { socket } = await realtime();
    expect(await event(socket)).toMatchObject({
      type: "error",
      error: { message: "no streaming engine is connected; try again later" },
    });
    expect(await socket.closeWithin()).toMatchObject({ code: 1013 });
  });
});

describe("realtime transcription: the beta wire", () => {
  it("opens with intent=transcription and answers in transcription_session events", async () => {
    const { client, session } = await opened("?intent=transcription");
    expect(await event(client)).toMatchObject({
      type: "transcription_session.created",
      session: { input_audio_format: "pcm16", turn_detection: { type: "server_vad" } },
    });
    await session.json();
    client.send({
      type: "transcription_session.update",
      session: {
        input_audio_format: "pcm16",
        input_audio_transcription: { model: "whisper-1", language: "en" },
      },
    });
    expect(await event(client)).toMatchObject({
      type: "transcription_session.updated",
      session: { input_audio_transcription: { model: "whisper-1", language: "en" } },
    });
    expect(await session.json()).toEqual({ type: "config", language: "en" });
    client.send({ type: "transcription_session.update", session: { input_audio_format: "g711_ulaw" } });
    expect(await event(client)).toMatchObject({
      type: "error",
      error: { param: "session.input_audio_format" },
    });
  });
});

describe("realtime transcription: credentials", () => {
  it("needs a credential, and a model or the transcription intent", async () => {
    const { socket, response } = await upgrade("/v1/realtime?model=gpt-4o-transcribe");
    expect(socket).toBeNull();
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/Bearer/) } });
    const bare = await upgrade("/v1/realtime", { authorization: `Bearer ${key}` });
    expect(bare.response.status).toBe(400);
    expect(await bare.response.json()).toMatchObject({ error: { param: "model" } });
  });

  it("opens from a browser with a client secret in the subprotocol, and chooses `realtime`", async () => {
    const minted = await call("/v1/realtime/client_secrets", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        expires_after: { anchor: "created_at", seconds: 60 },
        session: { type: "transcription" },
      }),
    });
    expect(minted.status).toBe(200);
    const secret = (await minted.json()) as { value: string; expires_at: number; session: { type: string } };
    expect(secret.session.type).toBe("transcription");
    expect(secret.expires_at).toBeGreaterThan(Date.now() / 1000 + 50);

    node = await FakeNode.connect("engine", 1);
    const { socket, response } = await realtime("?model=gpt-4o-transcribe", {
      "sec-websocket-protocol": `realtime, openai-insecure-api-key.${secret.value}`,
    });
    expect(response.headers.get("sec-websocket-protocol")).toBe("realtime");
    await node.acceptAssignment();
    expect(await event(socket)).toMatchObject({ type: "session.created" });

    // a secret of another scope, or an altered one, opens nothing
    const live = await call("/v1/auth/tokens", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ scope: "live" }),
    });
    const { token } = (await live.json()) as { token: string };
    for (const credential of [token, `${secret.value.slice(0, -2)}xx`]) {
      const refused = await upgrade("/v1/realtime?model=m", {
        "sec-websocket-protocol": `realtime, openai-insecure-api-key.${credential}`,
      });
      expect(refused.response.status).toBe(401);
    }
    const wrongType = await call("/v1/realtime/client_secrets", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ session: { type: "realtime" } }),
    });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({ error: { param: "session.type" } });
  });
});
