/**
 * Per-task stage timings from an inference node's JSON log (VOXEDGE_LOG_LEVEL=info): the lease
 * loop's "task started" / "task done" lines and the pipeline's "task stages" line.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { DecodeStages } from "../inference-node/pipeline/decode-stream.ts";

export interface TaskLog {
  /** Epoch ms of the node's log lines. */
  startedAt: number;
  stagesAt: number;
  doneAt: number;
  stages: DecodeStages & { reader: string; downloadMs: number; diarizeMs: number; postMs: number };
}

/** Reads a node's stdout as it runs and indexes its task lines by task id. */
export class NodeLog {
  readonly #tasks = new Map<string, Partial<TaskLog>>();
  readonly #waiters = new Map<string, () => void>();

  constructor(stdout: Readable) {
    createInterface({ input: stdout }).on("line", (line) => this.#line(line));
  }

  /** The task's log once its "task done" line is in (the node logs it right after `complete`). */
  async task(taskId: string, timeoutMs = 10_000): Promise<TaskLog> {
    const entry = this.#tasks.get(taskId);
    if (!entry?.doneAt) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "task done" log line for ${taskId}`)), timeoutMs);
        this.#waiters.set(taskId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const done = this.#tasks.get(taskId) as TaskLog;
    if (done.startedAt === undefined || done.stages === undefined) {
      throw new Error(`incomplete log for ${taskId}`);
    }
    return done;
  }

  /** Every task whose "task done" line is in, in log order. */
  tasks(): TaskLog[] {
    return [...this.#tasks.values()].filter(
      (t): t is TaskLog => t.doneAt !== undefined && t.stages !== undefined,
    );
  }

  #line(line: string): void {
    let record: { msg?: string; time?: number; task_id?: string } & Record<string, unknown>;
    try {
      record = JSON.parse(line);
    } catch {
      return;
    }
    const { msg, time, task_id: taskId } = record;
    if (!taskId || time === undefined) return;
    const entry = this.#tasks.get(taskId) ?? {};
    if (msg === "task started") entry.startedAt = time;
    else if (msg === "task stages") {
      entry.stagesAt = time;
      entry.stages = record as unknown as TaskLog["stages"];
    } else if (msg === "task done") entry.doneAt = time;
    else return;
    this.#tasks.set(taskId, entry);
    if (msg === "task done") {
      this.#waiters.get(taskId)?.();
      this.#waiters.delete(taskId);
    }
  }
}

/** The stage columns both benches report, in order. */
export const TASK_STAGES = [
  "fetch",
  "pcm_wait",
  "state",
  "mel",
  "encode",
  "decode",
  "sample",
  "asr_other",
  "diarize",
  "post",
  "complete",
] as const;

export type TaskStage = (typeof TASK_STAGES)[number];

/** A task's node-side stages in ms (complete: the node's `complete` call, up to "task done"). */
export function nodeStages(t: TaskLog): Record<TaskStage, number> {
  const s = t.stages;
  return {
    fetch: s.downloadMs,
    pcm_wait: s.pcmWaitMs,
    state: s.stateMs,
    mel: s.melMs,
    encode: s.encodeMs,
    decode: s.decodeMs,
    sample: s.sampleMs,
    asr_other: s.otherMs,
    diarize: s.diarizeMs,
    post: s.postMs,
    complete: t.doneAt - t.stagesAt,
  };
}
