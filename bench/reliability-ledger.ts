/**
 * The reliability bench's books: what the client was told (task ids per job), what the platform lists
 * (/history of every key), and what the nodes did (their logs), reconciled into the figures that must
 * be zero.
 */

import type { LocalPlatform, NodeLogLine } from "../test/helpers/local-platform.ts";
import type { HistoryEntry, HistoryPage } from "../worker/schemas/history.ts";
import type { JobOutcome } from "./fault-client.ts";

export interface Settled {
  /** Distinct task ids the API answered with. */
  accepted: number;
  /** Tasks /history lists, all keys together. */
  listed: number;
  done: number;
  failed: number;
  /** Accepted or listed tasks that never reached done or failed. */
  lost: number;
  /** Idempotent jobs that got more than one task (in the replies or in /history). */
  duplicateIdempotent: number;
  /** Listed tasks no client was told about (their request's answer was lost). */
  unacknowledged: number;
  /** Keys whose /history total is exactly the tasks created for them. */
  exactKeys: number;
  failureCodes: Record<string, number>;
}

/** What the nodes' logs say about one task: when each attempt started, and how often it completed. */
export interface TaskRun {
  starts: number[];
  dones: number;
}

export function taskRuns(lines: NodeLogLine[]): Map<string, TaskRun> {
  const runs = new Map<string, TaskRun>();
  for (const line of lines) {
    if (!line.task_id) continue;
    const run = runs.get(line.task_id) ?? { starts: [], dones: 0 };
    runs.set(line.task_id, run);
    if (line.msg === "task started") run.starts.push(line.time);
    else if (line.msg === "task done") run.dones++;
  }
  return runs;
}

/** Every /history entry of one key (paged). */
async function history(base: string, key: string): Promise<{ total: number; entries: HistoryEntry[] }> {
  const entries: HistoryEntry[] = [];
  for (let skip = 0; ; skip += 100) {
    const response = await fetch(`${base}/history?limit=100&skip=${skip}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.status !== 200) throw new Error(`history: ${response.status}`);
    const page = (await response.json()) as HistoryPage;
    entries.push(...page.jobs);
    if (entries.length >= page.total || page.jobs.length === 0) return { total: page.total, entries };
  }
}

const ended = (entry: HistoryEntry) => entry.status === "done" || entry.status === "failed";

/** Polls every key's /history until every task ended or `deadline` passes, then reconciles. */
export async function settleAll(
  stack: LocalPlatform,
  outcomes: JobOutcome[],
  deadline: number,
): Promise<Settled> {
  const known = new Set(outcomes.flatMap((o) => [...o.taskIds]));
  let pages: { total: number; entries: HistoryEntry[] }[] = [];
  for (;;) {
    pages = await Promise.all(stack.keys.map((key) => history(stack.url, key)));
    const listed = pages.flatMap((page) => page.entries);
    const listedIds = new Set(listed.map((entry) => entry.task_id));
    const open = listed.filter((entry) => !ended(entry)).length;
    const missing = [...known].filter((id) => !listedIds.has(id)).length;
    if ((open === 0 && missing === 0) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const listed = pages.flatMap((page) => page.entries);
  const listedIds = new Set(listed.map((entry) => entry.task_id));
  const failureCodes: Record<string, number> = {};
  for (const entry of listed) {
    if (entry.status === "failed")
      failureCodes[entry.error_code ?? "none"] = (failureCodes[entry.error_code ?? "none"] ?? 0) + 1;
  }
  const byContext = new Map<string, number>();
  for (const entry of listed) {
    const context = entry.params?.context ?? "";
    byContext.set(context, (byContext.get(context) ?? 0) + 1);
  }
  const keyed = outcomes.filter((o) => o.job.idempotencyKey !== null);
  const jobsOfKey = (keyIndex: number) => outcomes.filter((o) => o.job.keyIndex === keyIndex);
  const exactKeys = pages.filter((page, keyIndex) => {
    const mine = jobsOfKey(keyIndex);
    const contexts = new Set(mine.map((o) => o.job.context));
    const told = new Set(mine.flatMap((o) => [...o.taskIds]));
    const unheard = page.entries.filter((entry) => !told.has(entry.task_id));
    return (
      page.total === page.entries.length &&
      [...told].every((id) => page.entries.some((entry) => entry.task_id === id)) &&
      page.entries.every((entry) => contexts.has(entry.params?.context ?? "")) &&
      // A task no one heard of belongs to a request whose answer was lost, one task at most each.
      unheard.every((entry) => mine.some((o) => o.answerLost && o.job.context === entry.params?.context)) &&
      page.total === told.size + unheard.length
    );
  }).length;
  return {
    accepted: known.size,
    listed: listed.length,
    done: listed.filter((entry) => entry.status === "done").length,
    failed: listed.filter((entry) => entry.status === "failed").length,
    lost:
      listed.filter((entry) => !ended(entry)).length + [...known].filter((id) => !listedIds.has(id)).length,
    duplicateIdempotent: keyed.filter((o) => o.taskIds.size > 1 || (byContext.get(o.job.context) ?? 0) > 1)
      .length,
    unacknowledged: listed.filter((entry) => !known.has(entry.task_id)).length,
    exactKeys,
    failureCodes,
  };
}
