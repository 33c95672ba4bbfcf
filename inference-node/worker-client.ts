import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { z } from "zod";
import {
  type CompleteRequest,
  type FailRequest,
  type Lease,
  LeaseResponse,
  type NodeHealth,
  type NodeHeartbeatRequest,
  NodeHeartbeatResponse,
  NodeWhoami,
  type PartialTranscript,
} from "../protocol/node.ts";
import type { TaskKind } from "../protocol/task.ts";
import { type RetryOptions, sendWhileTransient } from "./transient-retry.ts";

/**
 * How long a task's outcome (its completion or its failure) is sent again while the Worker answers
 * "not now": a lease's default lifetime (LEASE_TTL_SEC), after which an unreported lease has expired, its
 * task is queued again and a late report is refused (410). Without it a completion that failed once
 * failed a finished task `internal_error`, and a transcription decoded for half an hour was decoded
 * again. Sending an outcome twice is safe: the Worker ends the lease with the first it takes and
 * answers a repeat 410, which the node drops (lease-loop.ts).
 */
export const OUTCOME_RETRY_MS = 60_000;

/** Sends a call safe to repeat (an outcome, an output, a catalog preview) again for OUTCOME_RETRY_MS, unless `retry` says otherwise. */
const resendForOutcome = (send: () => Promise<Response>, retry?: Partial<RetryOptions>) =>
  sendWhileTransient(send, { budgetMs: OUTCOME_RETRY_MS, ...retry });

/** What the Worker answers for a stored output file. */
const OutputReceipt = z.object({ object_key: z.string(), bytes: z.number(), content_type: z.string() });
export type OutputReceipt = z.infer<typeof OutputReceipt>;

/** The lease is gone (expired and handed back, or released): stop working on the task. */
export class LeaseGoneError extends Error {
  constructor(leaseId: string) {
    super(`lease ${leaseId} is no longer held`);
    this.name = "LeaseGoneError";
  }
}

/** A leased task's source is not stored (404): an enrolled speaker deleted after the job was queued. */
export class SourceMissingError extends Error {
  constructor(sourcePath: string, detail: string) {
    super(`source: HTTP 404 ${detail} (${sourcePath})`);
    this.name = "SourceMissingError";
  }
}

/** The Worker does not know this node's token (wrong, or revoked): no call can succeed. */
export class NodeTokenRefusedError extends Error {
  constructor() {
    super("the Worker refused this node's token (wrong or revoked): check --token or NODE_TOKEN");
    this.name = "NodeTokenRefusedError";
  }
}

/**
 * The node's side of the internal protocol (/internal/v1, NODE_TOKEN). Responses are parsed with the
 * same schemas the Worker uses.
 */
export class WorkerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** A request to the Worker; a streamed body needs `duplex: "half"` (Node's fetch). */
  private async request(
    path: string,
    init: RequestInit & { signal?: AbortSignal; duplex?: "half" } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${this.token}`);
    if (init.body && !headers.has("content-type")) headers.set("content-type", "application/json");
    return fetch(new URL(path, this.baseUrl), { ...init, headers });
  }

  private async expectOk(response: Response, what: string, leaseId?: string): Promise<Response> {
    if (response.status === 410 && leaseId) throw new LeaseGoneError(leaseId);
    if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
    return response;
  }

  /** The node identity this node's token names (its name goes on the node's log lines). */
  async whoami(): Promise<NodeWhoami> {
    const response = await this.request("/internal/v1/whoami");
    if (response.status === 401) throw new NodeTokenRefusedError();
    await this.expectOk(response, "whoami");
    return NodeWhoami.parse(await response.json());
  }

  /** Long-polls for up to `capacity` tasks of `kinds`; resolves with none after `waitMs` without work. */
  async lease(
    node: NodeHealth,
    capacity: number,
    kinds: TaskKind[],
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<Lease[]> {
    const response = await this.request("/internal/v1/lease", {
      method: "POST",
      body: JSON.stringify({ node, capacity, kinds, wait_ms: waitMs }),
      signal,
    });
    await this.expectOk(response, "lease");
    return LeaseResponse.parse(await response.json()).leases;
  }

  /** One heartbeat for every lease this node holds; each lease's answer, in no promised order. */
  async heartbeatNode(
    body: NodeHeartbeatRequest,
    retry: RetryOptions,
  ): Promise<NodeHeartbeatResponse["leases"]> {
    const json = JSON.stringify(body);
    const send = () => this.request("/internal/v1/heartbeat", { method: "POST", body: json });
    const response = await sendWhileTransient(send, retry);
    await this.expectOk(response, "heartbeat");
    return NodeHeartbeatResponse.parse(await response.json()).leases;
  }

  /** Reports a finished task's result, sent again for OUTCOME_RETRY_MS while the Worker answers "not now". */
  async complete(leaseId: string, completion: CompleteRequest, retry?: Partial<RetryOptions>): Promise<void> {
    const body = JSON.stringify(completion);
    const send = () => this.request(`/internal/v1/leases/${leaseId}/complete`, { method: "POST", body });
    const response = await resendForOutcome(send, retry);
    await this.expectOk(response, "complete", leaseId);
  }

  /** What has been decoded so far of a task that streams (`stream_partials`). */
  async partial(leaseId: string, report: PartialTranscript): Promise<void> {
    const response = await this.request(`/internal/v1/leases/${leaseId}/partial`, {
      method: "POST",
      body: JSON.stringify(report),
    });
    await this.expectOk(response, "partial", leaseId);
  }

  /**
   * Reports a failed attempt (the Worker retries it or fails the task, by the failure's code), sent
   * again for OUTCOME_RETRY_MS while the Worker answers "not now".
   */
  async fail(leaseId: string, failure: FailRequest, retry?: Partial<RetryOptions>): Promise<void> {
    const body = JSON.stringify(failure);
    const send = () => this.request(`/internal/v1/leases/${leaseId}/fail`, { method: "POST", body });
    const response = await resendForOutcome(send, retry);
    await this.expectOk(response, "fail", leaseId);
  }

  /** Uploads one output file of a leased render; the answer is what the completion lists. */
  async uploadOutput(
    leaseId: string,
    name: string,
    file: string,
    contentType: string,
    retry?: Partial<RetryOptions>,
  ): Promise<OutputReceipt> {
    // a render's file is part of its outcome: sent again (read again from the start) like a completion;
    // a try whose answer was lost leaves an object under the task's prefix, removed with the task
    const path = `/internal/v1/leases/${leaseId}/outputs/${encodeURIComponent(name)}`;
    const send = () => this.putFile(path, file, contentType);
    const response = await resendForOutcome(send, retry);
    await this.expectOk(response, "output upload", leaseId);
    return OutputReceipt.parse(await response.json());
  }

  /**
   * The catalog preview files the Worker already holds. Asked again while the Worker says "not now",
   * like the preview uploads: a node that starts during a redeploy would otherwise publish none until
   * its next start.
   */
  async storedPreviews(retry?: Partial<RetryOptions>): Promise<string[]> {
    const send = () => this.request("/internal/v1/previews");
    const response = await resendForOutcome(send, retry);
    await this.expectOk(response, "previews");
    return z.object({ files: z.array(z.string()) }).parse(await response.json()).files;
  }

  /** Stores one catalog preview (the same bytes under the same name: safe to send again). */
  async uploadPreview(
    name: string,
    file: string,
    contentType: string,
    retry?: Partial<RetryOptions>,
  ): Promise<void> {
    const send = () => this.putFile(`/internal/v1/previews/${encodeURIComponent(name)}`, file, contentType);
    const response = await resendForOutcome(send, retry);
    await this.expectOk(response, "preview upload");
  }

  /** PUTs a file's bytes, streamed, with its length declared (R2 wants it up front). */
  private async putFile(path: string, file: string, contentType: string): Promise<Response> {
    const { size } = await stat(file);
    return this.request(path, {
      method: "PUT",
      headers: { "content-type": contentType, "content-length": String(size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: "half",
    });
  }

  /** Streams a leased task's stored media (the lease's `source_path`). */
  async source(sourcePath: string, leaseId: string, signal?: AbortSignal): Promise<Response> {
    const response = await this.request(sourcePath, { signal });
    if (response.status === 404) throw new SourceMissingError(sourcePath, await response.text());
    return this.expectOk(response, "source", leaseId);
  }
}
