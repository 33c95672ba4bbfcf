/**
 * WebSocket clients for the live tests, connected through the Worker's real fetch handler: a client
 * of /ws, and a fake inference node that registers at the hub and dials into assigned sessions.
 */
import { exports } from "cloudflare:workers";
import { type AssignMessage, LIVE_NODE_PATH } from "../../protocol/live.ts";
import { call, NODE_TOKEN } from "./helpers.ts";

export interface Closed {
  code: number;
  reason: string;
}

/** One accepted socket with a queue of what it received and a promise of its close. */
export class TestSocket {
  private readonly received: (string | ArrayBuffer)[] = [];
  private wake: (() => void) | null = null;
  readonly closed: Promise<Closed>;
  closedWith: Closed | null = null;

  constructor(readonly ws: WebSocket) {
    ws.binaryType = "arraybuffer";
    ws.accept();
    ws.addEventListener("message", (event) => {
      this.received.push(event.data as string | ArrayBuffer);
      this.wake?.();
    });
    this.closed = new Promise((resolve) => {
      ws.addEventListener("close", (event) => {
        this.closedWith = { code: event.code, reason: event.reason };
        this.wake?.();
        resolve(this.closedWith);
      });
    });
  }

  /** The next frame (in order), or throws after `timeoutMs` or once the socket closed. */
  async next(timeoutMs = 3_000): Promise<string | ArrayBuffer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = this.received.shift();
      if (frame !== undefined) return frame;
      if (this.closedWith)
        throw new Error(`socket closed (${this.closedWith.code} ${this.closedWith.reason})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no frame within the time limit");
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, left);
      });
      this.wake = null;
    }
  }

  /** The next text frame parsed as JSON. */
  async json<T = Record<string, unknown>>(timeoutMs?: number): Promise<T> {
    const frame = await this.next(timeoutMs);
    if (typeof frame !== "string") throw new Error("expected a text frame, got binary");
    return JSON.parse(frame) as T;
  }

  send(data: unknown): void {
    this.ws.send(typeof data === "string" || data instanceof ArrayBuffer ? data : JSON.stringify(data));
  }

  /** Resolves with the close, or rejects when the socket stays open for `timeoutMs`. */
  async closeWithin(timeoutMs = 3_000): Promise<Closed> {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("socket did not close in time")), timeoutMs),
    );
    return Promise.race([this.closed, timeout]);
  }
}

/**
 * A pause between two frames whose order the test relies on (config, then audio; append, then commit).
 * The local runtime's hop from the test to the Durable Object delivers frames sent back to back out of
 * order now and then: the session logged a commit before its append, audio before its config. Measured
 * 2026-11-28 on the 2-core dev machine, otherwise idle: 14 of 150 append/commit pairs sent back to back
 * arrived swapped, 0 of 150 with this pause between them. A real client's frames share one TCP
 * connection and keep their order (the e2e project's clients), so the pause stands for the time
 * between two sends of a real client, not for anything the session must wait for.
 */
const FRAME_GAP_MS = 25;
export const frameGap = () => new Promise<void>((resolve) => setTimeout(resolve, FRAME_GAP_MS));

/** Upgrades `path` through the Worker; the socket when it answered 101, else the plain response. */
export async function upgrade(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ socket: TestSocket | null; response: Response }> {
  const response = await exports.default.fetch(
    new Request(`http://voxedge.test${path}`, { headers: { upgrade: "websocket", ...headers } }),
  );
  return { socket: response.webSocket ? new TestSocket(response.webSocket) : null, response };
}

/** Opens /ws; fails the test unless the upgrade was accepted. */
export async function connectClient(key: string, query = ""): Promise<TestSocket> {
  const { socket, response } = await upgrade(`/ws${query}`, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`/ws answered ${response.status}: ${await response.text()}`);
  return socket;
}

/**
 * A stand-in inference node speaking the internal live protocol: it registers, dials the path of
 * each assignment, and reports its running streams (so the hub counts its capacity) as a real node does.
 */
export class FakeNode {
  /** Stream assignments received, and the streams running (the fake's load report). */
  private assigned = 0;
  readonly running = new Set<string>();

  private constructor(
    readonly hub: TestSocket,
    private readonly token: string,
  ) {}

  /** Registers at the hub with `token` (the shared NODE_TOKEN unless a per-node token is given). */
  static async connect(
    nodeId = "fake-node",
    capacity = 1,
    model = "whisper-base",
    token = NODE_TOKEN,
  ): Promise<FakeNode> {
    const { socket } = await upgrade(LIVE_NODE_PATH, { authorization: `Bearer ${token}` });
    if (!socket) throw new Error("the hub refused the fake node");
    socket.send({ type: "register", node_id: nodeId, model, capacity });
    await waitForHealth((health) => health.asr_loaded === capacity > 0);
    return new FakeNode(socket, token);
  }

  /** The hub's next assignment, without acting on it. */
  async nextAssignment(timeoutMs?: number): Promise<AssignMessage> {
    const assign = await this.hub.json<AssignMessage>(timeoutMs);
    if (assign.type !== "assign") throw new Error(`expected assign, got ${assign.type}`);
    return assign;
  }

  /** Waits for the hub's next assignment and dials into its path, as a real node does. */
  async acceptAssignment(
    timeoutMs?: number,
  ): Promise<{ sessionId: string; session: TestSocket; mode: string }> {
    const assign = await this.nextAssignment(timeoutMs);
    const mode = assign.mode ?? "stream";
    if (mode === "stream") {
      this.assigned++;
      this.running.add(assign.session_id);
      this.reportLoad();
    }
    const { socket } = await upgrade(assign.path, { authorization: `Bearer ${this.token}` });
    if (!socket) throw new Error("the session refused the fake node");
    if (mode === "stream") {
      void socket.closed.then(() => {
        this.running.delete(assign.session_id);
        this.reportLoad();
      });
    }
    return { sessionId: assign.session_id, session: socket, mode };
  }

  reportLoad(): void {
    if (this.hub.ws.readyState !== WebSocket.OPEN) return; // disconnected: nothing to report to
    this.hub.send({ type: "load", streams: [...this.running], assigned: this.assigned });
  }

  async disconnect(): Promise<void> {
    this.hub.ws.close(1000, "test over");
    await waitForHealth((health) => !health.asr_loaded);
  }
}

export interface LiveHealth {
  busy: boolean;
  asr_loaded: boolean;
}

export async function health(): Promise<LiveHealth> {
  return (await (await call("/health")).json()) as LiveHealth;
}

/** Polls /health until `ok` holds; returns how long that took in ms, or throws after `timeoutMs`. */
export async function waitForHealth(ok: (health: LiveHealth) => boolean, timeoutMs = 3_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (ok(await health())) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`health condition not met in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
