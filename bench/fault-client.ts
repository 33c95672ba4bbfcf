/**
 * A careful API client for the reliability bench: it submits one job through one of the three ways in
 * (a URL, a multipart upload, the presigned flow) and behaves as the API asks a client to under
 * faults. A refusal (429, 409) is retried after Retry-After; a request that never reached the server
 * (connection refused: the platform is down) is sent again; a request whose answer was lost (reset,
 * 5xx) is sent again only with an Idempotency-Key, since without one the client cannot know whether a
 * task was created.
 */

export type Flow = "url" | "upload" | "presign";

export interface Job {
  index: number;
  /** The API key the job is sent with. */
  key: string;
  keyIndex: number;
  flow: Flow;
  /** Tags the task in /history (its params.context). */
  context: string;
  /** Sent with every copy of the create request; null for a plain request sent once. */
  idempotencyKey: string | null;
  /** Copies of the create request sent on purpose (two at once, the rest one after another). */
  copies: number;
}

export interface JobOutcome {
  job: Job;
  /** Every task id the API answered with (one, for an idempotent job done right). */
  taskIds: Set<string>;
  /** When the first 200 arrived (Unix ms). */
  acceptedAt: number | null;
  replayed: number;
  /** The answer to a request without a key was lost: a task may or may not exist. */
  answerLost: boolean;
  rateLimited: number;
  conflicts: number;
  /** Sends repeated because the platform was down or the answer was lost. */
  resent: number;
}

export interface Media {
  /** Where the media server serves the clip for URL jobs. */
  url: (job: Job) => string;
  /** The clip's bytes for uploads. */
  bytes: Uint8Array;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Never reached the server: connection refused (nothing listening). */
function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === "ECONNREFUSED";
}

type Send = () => Promise<Response>;

/** Presign + PUT: they create no task, so any failure is simply tried again. */
async function uploadObject(base: string, job: Job, media: Media): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const presign = await fetch(`${base}/uploads/presign`, {
        method: "POST",
        headers: { authorization: `Bearer ${job.key}`, "content-type": "application/json" },
        body: JSON.stringify({ filename: `${job.context}.wav`, content_type: "audio/wav" }),
      });
      if (presign.status === 429) {
        await sleep(Number(presign.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      if (presign.status !== 200) throw new Error(`presign: ${presign.status}`);
      const { object_key, upload_url } = (await presign.json()) as { object_key: string; upload_url: string };
      const put = await fetch(upload_url, {
        method: "PUT",
        headers: { "content-type": "audio/wav" },
        body: media.bytes,
      });
      if (put.status !== 200) throw new Error(`PUT: ${put.status}`);
      return object_key;
    } catch (error) {
      if (attempt >= 60) throw error;
      await sleep(1_000);
    }
  }
}

async function createRequest(base: string, job: Job, media: Media): Promise<Send> {
  const headers: Record<string, string> = { authorization: `Bearer ${job.key}` };
  if (job.idempotencyKey) headers["idempotency-key"] = job.idempotencyKey;
  const json = (path: string, body: unknown) => () =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  if (job.flow === "url") return json("/transcribe", { file_url: media.url(job), context: job.context });
  if (job.flow === "presign") {
    const objectKey = await uploadObject(base, job, media);
    return json("/transcribe/object", { object_key: objectKey, context: job.context });
  }
  return () => {
    const form = new FormData();
    form.append("file", new Blob([media.bytes], { type: "audio/wav" }), `${job.context}.wav`);
    form.append("context", job.context);
    return fetch(`${base}/transcribe/upload`, { method: "POST", headers, body: form });
  };
}

/** Sends one copy until it gets a definitive answer; records what happened in `outcome`. */
async function sendCopy(send: Send, outcome: JobOutcome, deadline: number): Promise<void> {
  const keyed = outcome.job.idempotencyKey !== null;
  while (Date.now() < deadline) {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      if (!neverSent(error) && !keyed) {
        outcome.answerLost = true;
        return;
      }
      outcome.resent++;
      await sleep(500);
      continue;
    }
    if (response.status === 200) {
      const { task_id } = (await response.json()) as { task_id: string };
      outcome.taskIds.add(task_id);
      outcome.acceptedAt ??= Date.now();
      if (response.headers.get("idempotent-replayed") === "true") outcome.replayed++;
      return;
    }
    const text = await response.text();
    if (response.status === 429 || response.status === 409) {
      if (response.status === 429) outcome.rateLimited++;
      else outcome.conflicts++;
      await sleep(Number(response.headers.get("retry-after") ?? "1") * 1000);
      continue;
    }
    if (response.status >= 500 && keyed) {
      outcome.resent++;
      await sleep(500);
      continue;
    }
    if (response.status >= 500) {
      outcome.answerLost = true;
      return;
    }
    throw new Error(`job ${outcome.job.index} (${outcome.job.flow}): ${response.status} ${text}`);
  }
  throw new Error(`job ${outcome.job.index}: no answer before the deadline`);
}

/** Submits a job: all its copies (two at once, then the rest in turn). */
export async function submitJob(base: string, job: Job, media: Media, deadline: number): Promise<JobOutcome> {
  const outcome: JobOutcome = {
    job,
    taskIds: new Set(),
    acceptedAt: null,
    replayed: 0,
    answerLost: false,
    rateLimited: 0,
    conflicts: 0,
    resent: 0,
  };
  const send = await createRequest(base, job, media);
  const first = Math.min(2, job.copies);
  await Promise.all(Array.from({ length: first }, () => sendCopy(send, outcome, deadline)));
  for (let i = first; i < job.copies; i++) await sendCopy(send, outcome, deadline);
  return outcome;
}
