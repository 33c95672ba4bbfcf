import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LIVE_MAX_FRAME_BYTES } from "../../protocol/live.ts";
import { SingleServerMessage } from "../../protocol/rooms.ts";
import { createKey, NODE_TOKEN } from "./helpers.ts";
import {
  connectClient,
  FakeNode,
  frameGap,
  type TestSocket,
  upgrade,
  waitForHealth,
} from "./live-helpers.ts";

/**
 * /api/v1/ws/single through the Worker, the LiveHub (engine capacity, no gate) and a LiveSession in
 * translate mode, with a fake engine on the internal side.
 */

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("single")).key;
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function single(query = ""): Promise<TestSocket> {
  const { socket, response } = await upgrade(`/api/v1/ws/single${query}`, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`single answered ${response.status}: ${await response.text()}`);
  open.push(socket);
  return socket;
}

const pcm = (bytes: number) => new Uint8Array(bytes).map((_, i) => i % 251).buffer;
const json = (socket: TestSocket) => socket.json<SingleServerMessage & Record<string, unknown>>();

describe("single-device translation", () => {
  it("takes a config, relays audio, and answers {is_final, original, translation} per utterance", async () => {
    node = await FakeNode.connect("engine", 2);
    const client = await single();
    const { session } = await node.acceptAssignment();
    expect(SingleServerMessage.parse(await json(client))).toMatchObject({ type: "ready" });

    client.send(pcm(320)); // before any config
    expect(await json(client)).toEqual({
      type: "error",
      message: "send a config message before audio: frame dropped",
    });
    // More frames before the config are dropped without another error each: the next message is the
    // answer to the malformed text after them.
    for (let i = 0; i < 5; i++) client.send(pcm(320));
    client.send("{not json");
    expect(await json(client)).toMatchObject({
      type: "error",
      message: expect.stringMatching(/^control message is not valid JSON/),
    });
    client.send({ type: "config", language: "en", translate_language: "Vietnamese" });
    expect(await session.json()).toEqual({
      type: "config",
      language: "en",
      targets: ["vi"],
      interim_target: "vi",
    });
    client.send(pcm(3200));
    expect(((await session.next()) as ArrayBuffer).byteLength).toBe(3200);

    session.send({
      type: "interim",
      text: "good morning",
      start: 0.2,
      end: 1,
      utterance_id: "u1",
      language: "en",
      translations: { vi: "chào buổi sáng" },
    });
    expect(await json(client)).toEqual({
      type: "transcript",
      is_final: false,
      original: "good morning",
      translation: "chào buổi sáng",
      translation_language: "vi",
      language: "en",
      utterance_id: "u1",
      start: 0.2,
      end: 1,
    });
    session.send({
      type: "interim",
      text: "good morning every",
      start: 0.2,
      end: 1.5,
      utterance_id: "u1",
      language: "en",
      translations: {}, // the backend was too slow for interims
    });
    expect(await json(client)).toMatchObject({ is_final: false, translation: "" });
    session.send({
      type: "final",
      text: "Good morning, everyone.",
      start: 0.2,
      end: 1.9,
      language: "en",
      utterance_id: "u1",
      translations: {},
      translation_errors: ["vi"],
    });
    expect(await json(client)).toEqual({
      type: "transcript",
      is_final: true,
      original: "Good morning, everyone.",
      translation: "Good morning, everyone.",
      translation_language: "vi",
      translation_error: true,
      language: "en",
      utterance_id: "u1",
      start: 0.2,
      end: 1.9,
    });

    // a new config at any time: the engine gets it (it applies from the next utterance)
    client.send({ type: "config", language: "auto", translate_language: "es" });
    expect(await session.json()).toEqual({
      type: "config",
      language: "auto",
      targets: ["es"],
      interim_target: "es",
    });
    client.send({ type: "end" });
    expect(await session.json()).toEqual({ type: "end" });
    session.send({ type: "ended" });
    expect(await client.closeWithin()).toMatchObject({ code: 1000 });
  });

  it("keeps audio sent before the engine is in, and hands it over after the config", async () => {
    node = await FakeNode.connect("engine", 1);
    const client = await single(`?api_key=${encodeURIComponent(key)}`);
    const assignment = await node.nextAssignment();
    client.send({ type: "config", language: "en", translate_language: "es" });
    await frameGap();
    client.send(pcm(640));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { socket: session } = await upgrade(assignment.path, { authorization: `Bearer ${NODE_TOKEN}` });
    expect(await session?.json()).toEqual({
      type: "config",
      language: "en",
      targets: ["es"],
      interim_target: "es",
    });
    expect(((await session?.next()) as ArrayBuffer).byteLength).toBe(640);
    expect(await json(client)).toMatchObject({ type: "ready" });
    session?.ws.close(1000, "done");
  });

  it("answers bad input with errors and keeps going; closes 1009 on oversize frames", async () => {
    node = await FakeNode.connect("engine", 1);
    const client = await single();
    await node.acceptAssignment();
    await json(client); // ready
    client.send("some words");
    expect(await json(client)).toMatchObject({
      type: "error",
      message: expect.stringMatching(/audio goes in binary frames/),
    });
    client.send({ type: "config", language: "en", translate_language: "klingon" });
    expect(await json(client)).toEqual({ type: "error", message: "unsupported translate_language: klingon" });
    client.send({ type: "config", language: "elvish", translate_language: "es" });
    expect(await json(client)).toEqual({ type: "error", message: "unsupported language: elvish" });
    client.send(pcm(LIVE_MAX_FRAME_BYTES + 2));
    expect(await client.closeWithin()).toMatchObject({ code: 1009 });
  });
});

describe("engine capacity", () => {
  it("runs several single sessions at once up to the engines' capacity; /ws keeps its one-session gate", async () => {
    node = await FakeNode.connect("engine", 3);
    const first = await single();
    const firstStream = await node.acceptAssignment();
    const second = await single();
    await node.acceptAssignment();
    for (const socket of [first, second]) expect(await json(socket)).toMatchObject({ type: "ready" });

    // another key: one key holds at most LIVE_MAX_STREAMS_PER_KEY (2) streams, capacity is what is tested here
    const mic = await connectClient((await createKey("mic")).key);
    open.push(mic);
    await node.acceptAssignment();
    expect(await mic.json()).toMatchObject({ type: "ready" });
    // the engine is full now: a fourth stream of either kind is refused with a reason
    const refused = await single();
    expect(await refused.json()).toEqual({
      type: "error",
      message: "every streaming engine is busy; try again later",
    });
    expect(await refused.closeWithin()).toMatchObject({ code: 1013 });

    // a slot frees the moment a stream ends (its session tells the hub): single sessions need no gate...
    first.ws.close(1000, "done");
    expect(await first.closeWithin()).toMatchObject({ code: 1000 });
    // the runtime answers the client's close at once; the session has told the hub when it closes the engine's socket
    await firstStream.session.closeWithin();
    const third = await single();
    await node.acceptAssignment();
    expect(await json(third)).toMatchObject({ type: "ready" });
    // ...but a second /ws session still meets the gate
    const secondMic = await connectClient(key);
    expect(await secondMic.json()).toMatchObject({ message: expect.stringMatching(/another live session/) });
    expect(await secondMic.closeWithin()).toMatchObject({ code: 1013 });
  });

  it("refuses a single session with 1013 while no engine is connected", async () => {
    const client = await single();
    expect(await client.json()).toEqual({
      type: "error",
      message: "no streaming engine is connected; try again later",
    });
    expect(await client.closeWithin()).toMatchObject({ code: 1013 });
  });

  it("needs an API key before upgrading", async () => {
    const { socket, response } = await upgrade("/api/v1/ws/single");
    expect(socket).toBeNull();
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      code: "unauthorized",
      error: expect.stringMatching(/api_key/),
    });
  });
});
