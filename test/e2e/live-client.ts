/**
 * A live WebSocket client for the end-to-end tests and the benches (/ws, /api/v1/ws/single, rooms): a
 * Node `ws` socket that records every server message (parsed with that endpoint's schema) with its
 * arrival time, and streams PCM at real time in 100 ms frames.
 */
import WebSocket from "ws";
import { float32ToPcm16 } from "../../inference-node/live/pcm.ts";
import { ServerMessage } from "../../protocol/live.ts";

/** Anything a live endpoint sends: JSON with a `type`. */
export type Typed = { type: string };

export interface Received<M extends Typed = ServerMessage> {
  message: M;
  /** performance.now() at arrival. */
  at: number;
}

export interface Closed {
  code: number;
  reason: string;
}

/**
 * Opens a live socket (by default /ws, whose messages `parse` checks); resolves once the socket is
 * open, or with the HTTP status when the upgrade is refused.
 */
export function openLive<M extends Typed = ServerMessage>(
  url: string,
  headers: Record<string, string> = {},
  parse: (json: unknown) => M = (json) => ServerMessage.parse(json) as unknown as M,
): Promise<LiveClient<M> | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, "ws"), { headers });
    const client = new LiveClient<M>(ws, parse);
    ws.once("open", () => resolve(client));
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("error", reject);
  });
}

export class LiveClient<M extends Typed = ServerMessage> {
  readonly received: Received<M>[] = [];
  readonly closed: Promise<Closed>;
  #wake: (() => void) | null = null;
  #closedWith: Closed | null = null;

  constructor(
    readonly ws: WebSocket,
    parse: (json: unknown) => M,
  ) {
    ws.on("message", (data: Buffer) => {
      this.received.push({ message: parse(JSON.parse(data.toString("utf8"))), at: performance.now() });
      this.#wake?.();
    });
    this.closed = new Promise((resolve) => {
      ws.once("close", (code, reason) => {
        this.#closedWith = { code, reason: reason.toString("utf8") };
        this.#wake?.();
        resolve(this.#closedWith);
      });
    });
  }

  /** The first message of `type` after index `from` (waits up to `timeoutMs`). */
  async waitFor<T extends M["type"]>(
    type: T,
    timeoutMs = 10_000,
    from = 0,
  ): Promise<Extract<M, { type: T }>> {
    return (await this.waitUntil((m) => m.type === type, `${type} message`, timeoutMs, from)) as Extract<
      M,
      { type: T }
    >;
  }

  /** The first message after index `from` that `match` accepts (waits up to `timeoutMs`). */
  async waitUntil(match: (message: M) => boolean, what: string, timeoutMs = 10_000, from = 0): Promise<M> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(from).find((r) => match(r.message));
      if (found) return found.message;
      if (this.#closedWith)
        throw new Error(`closed (${this.#closedWith.code} ${this.#closedWith.reason}) before ${what}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, left);
      });
    }
  }

  /** Resolves with the close, or rejects when the socket stays open for `timeoutMs`. */
  closeWithin(timeoutMs = 5_000): Promise<Closed> {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`socket still open after ${timeoutMs} ms`)), timeoutMs),
    );
    return Promise.race([this.closed, timeout]);
  }

  sendJson(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /**
   * Streams samples as PCM16 frames of `frameMs`, paced to the wall clock (`speed` 1 = real time).
   * Returns performance.now() at which each frame was sent.
   */
  async stream(samples: Float32Array, speed = 1, frameMs = 100): Promise<number[]> {
    const pcm = float32ToPcm16(samples);
    const frameBytes = (16_000 * 2 * frameMs) / 1000;
    const sentAt: number[] = [];
    const started = performance.now();
    for (let i = 0; i * frameBytes < pcm.length; i++) {
      const due = started + (i * frameMs) / speed;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (this.ws.readyState !== WebSocket.OPEN) break;
      this.ws.send(pcm.subarray(i * frameBytes, (i + 1) * frameBytes));
      sentAt.push(performance.now());
    }
    return sentAt;
  }
}
