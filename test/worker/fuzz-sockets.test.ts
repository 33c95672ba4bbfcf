/**
 * Model-based fuzzing of the three client sockets: /ws (live microphone), /api/v1/ws/single and the
 * room socket /api/v1/ws/{id}. A random sequence of frames (audio of every size and parity, exactly
 * and just over the 64 KiB cap, control messages valid and not, text where audio is expected, JSON
 * bytes in a binary frame, text over the 4096-character cap up to 1 MiB, lone surrogates that arrive
 * as U+FFFD) goes in; each frame must have exactly its documented effect, in order: relayed to the
 * engine untouched, answered with an `error` message (the socket stays open), or, for an oversize
 * frame, a 1009 close. Nothing else may come back, and the socket must still answer afterwards.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_MAX_FRAME_BYTES } from "../../protocol/live.ts";
import { fuzzRuns } from "../helpers/fuzz.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";
import { join, newSession } from "./rooms-helpers.ts";

const seed = (n: number) => fuzzRuns(1).seed + 60 + n;
const MAX_CONTROL_CHARS = 4096;

type Frame =
  | { kind: "audio"; bytes: number; content: "zero" | "json" }
  | { kind: "config-valid" }
  | { kind: "config-bad-language" }
  | { kind: "end" }
  | { kind: "text"; text: string };

const audio = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 8000 }) },
  fc.integer({ min: LIVE_MAX_FRAME_BYTES - 3, max: LIVE_MAX_FRAME_BYTES + 3 }),
  fc.integer({ min: LIVE_MAX_FRAME_BYTES + 4, max: 200_000 }),
);

/** Text that is no control message: junk, JSON of other shapes, over-long, lone surrogates. */
const junkText = fc.oneof(
  fc.string({ maxLength: 60 }).filter((s) => !/"type"\s*:\s*"(config|end)"/.test(s)),
  fc
    .jsonValue({ maxDepth: 2 })
    .map((v) => JSON.stringify(v) ?? "null")
    .filter((s) => !/"type"/.test(s)),
  fc.constantFrom(
    '{"type":"pause"}',
    '{"type":"config"}',
    '{"type":"END"}',
    "\ud800",
    "\udfff{}",
    "[]",
    "null",
  ),
  fc
    .integer({ min: MAX_CONTROL_CHARS + 1, max: 1024 * 1024 })
    .map((n) => `{"type":"config","language":"${"e".repeat(n)}"}`),
  fc.integer({ min: MAX_CONTROL_CHARS + 1, max: 20_000 }).map((n) => "x".repeat(n)),
);

const frame: fc.Arbitrary<Frame> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(audio, fc.constantFrom("zero", "json"))
      .map(([bytes, content]) => ({ kind: "audio" as const, bytes, content })),
  },
  fc.constant({ kind: "config-valid" as const }),
  fc.constant({ kind: "config-bad-language" as const }),
  { weight: 3, arbitrary: junkText.map((text) => ({ kind: "text" as const, text })) },
);

function audioFrame(f: Extract<Frame, { kind: "audio" }>): ArrayBuffer {
  const bytes = new Uint8Array(f.bytes);
  if (f.content === "json") bytes.set(new TextEncoder().encode('{"type":"end"}').subarray(0, f.bytes));
  return bytes.buffer;
}

type Effect = "relay-audio" | "relay-config" | "error" | "close-1009" | "nothing";

interface SocketModel {
  /** What the socket does with the frame, given what came before. */
  effect(f: Frame): Effect;
  configMessage(): unknown;
}

function send(socket: TestSocket, f: Frame, config: unknown): void {
  if (f.kind === "audio") socket.send(audioFrame(f));
  else if (f.kind === "config-valid") socket.send(config);
  else if (f.kind === "config-bad-language") socket.send({ ...(config as object), language: "klingon" });
  else if (f.kind === "end") socket.send({ type: "end" });
  else socket.send(f.text);
}

/** Plays the frames and checks each effect in order; returns whether the socket was closed. */
async function play(
  client: TestSocket,
  engine: TestSocket | null,
  model: SocketModel,
  frames: Frame[],
  isNoise: (message: Record<string, unknown>) => boolean = () => false,
): Promise<boolean> {
  const nextFromClient = async () => {
    for (;;) {
      const message = await client.json();
      if (!isNoise(message)) return message;
    }
  };
  for (const f of frames) {
    const effect = model.effect(f);
    const label = `${JSON.stringify(f).slice(0, 120)} -> ${effect}`;
    send(client, f, model.configMessage());
    if (effect === "close-1009") {
      expect((await client.closeWithin()).code, label).toBe(1009);
      return true;
    }
    if (effect === "error") {
      expect(await nextFromClient(), label).toMatchObject({ type: "error", message: expect.any(String) });
    } else if (effect === "relay-audio" && engine) {
      const relayed = await engine.next();
      expect(relayed, label).toBeInstanceOf(ArrayBuffer);
      expect((relayed as ArrayBuffer).byteLength, label).toBe(f.kind === "audio" ? f.bytes : -1);
    } else if (effect === "relay-config" && engine) {
      expect(await engine.json(), label).toMatchObject({ type: "config" });
    }
  }
  // still alive, and nothing else was said: a last bad frame gets exactly its error
  client.send("still there?");
  expect(await nextFromClient()).toMatchObject({ type: "error" });
  return false;
}

/** /ws and single mode share the classification of audio and text; they differ on config and order. */
const liveEffect =
  (configured: () => boolean, markConfigured: () => void) =>
  (f: Frame): Effect => {
    if (f.kind === "audio") {
      if (f.bytes > LIVE_MAX_FRAME_BYTES) return "close-1009";
      if (f.bytes % 2 !== 0) return "error";
      return configured() ? "relay-audio" : "error";
    }
    if (f.kind === "config-valid") {
      markConfigured();
      return "relay-config";
    }
    return f.kind === "end" ? "nothing" : "error";
  };

let key: string;
let node: FakeNode;

beforeAll(async () => {
  key = (await createKey("socket-fuzz")).key;
  node = await FakeNode.connect("fuzz-engine", 2);
});

afterAll(async () => {
  await node.disconnect();
});

async function openLive(path: string): Promise<{ client: TestSocket; engine: TestSocket }> {
  const { socket, response } = await upgrade(path, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`${path} answered ${response.status}`);
  const { session } = await node.acceptAssignment();
  expect(await socket.json()).toMatchObject({ type: "ready" });
  // a live-mic engine hears the connect-time language first (single mode waits for the client's config)
  if (path.startsWith("/ws")) expect(await session.json()).toMatchObject({ type: "config" });
  return { client: socket, engine: session };
}

async function closeLive(client: TestSocket): Promise<void> {
  if (!client.closedWith) client.ws.close(1000, "fuzz case over");
  await client.closed;
  await waitForHealth((health) => !health.busy);
}

describe("live sockets (fuzzed frames)", { timeout: 90_000 }, () => {
  it("/ws: every frame has its documented effect, in order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const { client, engine } = await openLive("/ws?language=en");
        const model: SocketModel = {
          effect: liveEffect(
            () => true,
            () => undefined,
          ),
          configMessage: () => ({ type: "config", language: "de" }),
        };
        try {
          await play(client, engine, model, frames);
        } finally {
          await closeLive(client);
        }
      }),
      { ...fuzzRuns(12), seed: seed(0) },
    );
  });

  it("/api/v1/ws/single: audio before a config is refused, after it relayed; the rest as on /ws", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const { client, engine } = await openLive("/api/v1/ws/single");
        let configured = false;
        const model: SocketModel = {
          effect: liveEffect(
            () => configured,
            () => {
              configured = true;
            },
          ),
          configMessage: () => ({ type: "config", language: "en", translate_language: "es" }),
        };
        try {
          await play(client, engine, model, frames);
        } finally {
          await closeLive(client);
        }
      }),
      { ...fuzzRuns(12), seed: seed(1) },
    );
  });
});

describe("room sockets (fuzzed frames)", { timeout: 90_000 }, () => {
  it("/api/v1/ws/{id}: audio is taken silently, `end` too, anything else is an error; 1009 over 64 KiB", async () => {
    const conversation = await newSession(key);
    const roomFrame: fc.Arbitrary<Frame> = fc.oneof(
      { weight: 4, arbitrary: frame },
      fc.constant({ kind: "end" as const }),
    );
    let member = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(roomFrame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const { socket } = await join(conversation, { language: "en", client_id: `fuzz-member-${member++}` });
        const model: SocketModel = {
          effect: (f) => {
            if (f.kind === "audio") {
              if (f.bytes > LIVE_MAX_FRAME_BYTES) return "close-1009";
              return f.bytes % 2 !== 0 ? "error" : "nothing";
            }
            return f.kind === "end" ? "nothing" : "error";
          },
          configMessage: () => ({ type: "config", language: "en" }),
        };
        // A loud frame asks the hub for an engine, and what becomes of that (no free slot, an engine that
        // never dials in, a speaker or key limit) is told as an error: not what is tested here. Presence
        // messages neither.
        const noise = (m: Record<string, unknown>) =>
          m.type !== "error" ||
          ["no_engine", "key_limit", "speaker_limit", "engine_lost", "engine_error"].includes(String(m.code));
        try {
          await play(socket, null, model, frames, noise);
        } finally {
          if (!socket.closedWith) socket.ws.close(1000, "fuzz case over");
          await socket.closed;
        }
      }),
      { ...fuzzRuns(12), seed: seed(2) },
    );
  });
});
