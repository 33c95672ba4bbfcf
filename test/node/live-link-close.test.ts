import { createHash } from "node:crypto";
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DecodeGate } from "../../inference-node/live/decode-gate.ts";
import { LiveSpeech } from "../../inference-node/live/live-speech.ts";
import { DEFAULT_LIVE_OPTIONS } from "../../inference-node/live/options.ts";
import { serveSession } from "../../inference-node/live/session-link.ts";
import { logger } from "../../inference-node/logger.ts";
import { LatencyMeter } from "../../inference-node/translate/fan-out.ts";
import { EnergyVoiceActivity } from "../../inference-node/vad/voice-activity.ts";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import { microModelPath } from "../native/helpers.ts";

/**
 * A session link the Worker has closed must free the node's engine at once, whenever the server gets
 * round to dropping the TCP connection. (wrangler dev's workerd kept it open ~10 s after a client left,
 * and a burst of short sessions piled up two whisper states each: the soak saw the node reach 2.8 GB.)
 * The server here speaks just enough WebSocket: it accepts the upgrade, sends a close frame
 * "session over", and then keeps the connection open, as that workerd did.
 */

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

let model: WhisperModel;
let server: Server;
let url: string;
const sockets = new Set<Socket>();

/** A close frame from the server (unmasked): code 1000, reason "session over". */
function closeFrame(): Buffer {
  const reason = Buffer.from("session over");
  const payload = Buffer.concat([Buffer.from([0x03, 0xe8]), reason]);
  return Buffer.concat([Buffer.from([0x88, payload.length]), payload]);
}

beforeAll(async () => {
  model = await loadModel(await microModelPath(), { threads: 1 });
  server = createServer((_req, res) => res.writeHead(426).end());
  server.on("upgrade", (req, socket: Socket) => {
    sockets.add(socket);
    const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}${GUID}`).digest("base64");
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    // The session is over at once; the node's reply is read and ignored, the connection stays open.
    setTimeout(() => socket.write(closeFrame()), 100);
    socket.on("data", () => undefined);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/internal/v1/live/sessions/s1`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await model.dispose();
});

describe("a session link closed by the Worker", () => {
  it("frees both whisper states and its abort listener though the server keeps the connection open", async () => {
    const stopping = new AbortController();
    let disposed = 0;
    const createStream = model.createStream.bind(model);
    const counting = Object.create(model) as WhisperModel;
    counting.createStream = async (defaults) => {
      const stream = await createStream(defaults);
      const dispose = stream.dispose.bind(stream);
      stream.dispose = () => {
        disposed++;
        return dispose();
      };
      return stream;
    };
    let linkClosed = false;
    const deps = {
      model: counting,
      options: DEFAULT_LIVE_OPTIONS,
      vad: new EnergyVoiceActivity(),
      gate: new DecodeGate(2, 2),
      logger,
      mt: { translator: null, meter: new LatencyMeter() },
      speech: new LiveSpeech(null),
    };
    const served = serveSession(url, "node-token-1234", deps, stopping.signal, () => {
      linkClosed = true;
    });
    // ws's own wait for the server to end the connection is 30 s; the node must not wait that long.
    const outcome = await Promise.race([
      served.then(() => "freed"),
      new Promise((resolve) => setTimeout(() => resolve("still held"), 10_000)),
    ]);
    expect(outcome).toBe("freed");
    expect(disposed).toBe(2);
    expect(linkClosed).toBe(true);
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(0);
  }, 40_000);
});
