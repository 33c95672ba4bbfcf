import WebSocket from "ws";
import {
  type AssignMessage,
  HubToNode,
  LIVE_NODE_STALE_MS,
  LIVE_PING,
  LIVE_PING_INTERVAL_MS,
  LIVE_PONG,
  type NodeLoad,
  type NodeRegister,
  parseLiveMessage,
} from "../../protocol/live.ts";
import { Backoff, HUB_LINK_BACKOFF } from "../backoff.ts";
import type { Logger } from "../logger.ts";

export interface HubLinkOptions {
  /** ws(s)://…/internal/v1/live/node */
  url: string;
  token: string;
  register: NodeRegister;
  /** Called for every assignment; a `stream` one must be followed by {@link HubLink.reportLoad}. */
  onAssign: (assign: AssignMessage) => void;
  /** Ids of the streams running now (reported at every (re)connect). */
  activeStreams: () => string[];
  logger: Logger;
}

/**
 * The node's one outbound socket to the LiveHub: registers the engine, pings (the hub's runtime
 * answers without waking it), takes assignments, reports how many streams run (so the hub counts
 * capacity), and reconnects with jittered backoff whenever the socket drops or stops answering pings.
 * Outbound only, like the lease loop: no inbound port.
 */
export class HubLink {
  #ws: WebSocket | null = null;
  /** Stream assignments received on the current socket (the hub counts the ones it sent). */
  #assigned = 0;
  #stopped = false;
  readonly #backoff = new Backoff(HUB_LINK_BACKOFF);
  #retry: NodeJS.Timeout | null = null;

  constructor(private readonly options: HubLinkOptions) {}

  start(): void {
    if (!this.#ws && !this.#stopped) this.#connect();
  }

  /** Closes the socket for good; the hub stops counting this engine at once. */
  stop(): void {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#ws?.close(1000, "node stopping");
  }

  /** Tells the hub which streams run now; call it whenever the set changes. */
  reportLoad(): void {
    const ws = this.#ws;
    if (ws?.readyState !== WebSocket.OPEN) return;
    const load: NodeLoad = { type: "load", streams: this.options.activeStreams(), assigned: this.#assigned };
    ws.send(JSON.stringify(load));
  }

  #connect(): void {
    const { url, token, register, logger } = this.options;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    this.#ws = ws;
    let lastPong = Date.now();
    let pinger: NodeJS.Timeout | undefined;
    ws.on("open", () => {
      this.#backoff.reset();
      lastPong = Date.now();
      this.#assigned = 0;
      ws.send(JSON.stringify(register));
      this.reportLoad();
      logger.info(
        { node_id: register.node_id, capacity: register.capacity },
        "live: engine registered at the hub",
      );
      pinger = setInterval(() => {
        // a half-open socket never closes by itself: no pong for a while means the hub is gone
        if (Date.now() - lastPong > LIVE_NODE_STALE_MS) ws.terminate();
        else ws.send(LIVE_PING);
      }, LIVE_PING_INTERVAL_MS);
    });
    ws.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      if (text === LIVE_PONG) {
        lastPong = Date.now();
        return;
      }
      const parsed = parseLiveMessage(HubToNode, text);
      if (!parsed.ok) return logger.warn({ error: parsed.error }, "live: bad hub message");
      if (parsed.value.mode === "stream") this.#assigned++;
      this.options.onAssign(parsed.value);
    });
    // e.g. "Unexpected server response: 401" (wrong NODE_TOKEN); the close handler retries
    ws.on("error", (error) => logger.warn({ err: error.message }, "live: hub socket error"));
    ws.on("close", (code, reason) => {
      clearInterval(pinger);
      this.#ws = null;
      if (this.#stopped) return;
      const retryMs = this.#backoff.next();
      logger.warn({ code, reason: reason.toString(), retry_ms: retryMs }, "live: hub socket closed");
      this.#retry = setTimeout(() => this.#connect(), retryMs);
    });
  }
}
