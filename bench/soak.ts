/**
 * Group `soak`: the local platform kept busy for minutes, looking for what accumulates. On one node
 * (synthetic micro model, Apertium for the rooms): a 2-hour file (speech looped by ffmpeg) decoded
 * while 10 000 polls hit its task, then 500 /ws sessions opened and closed one after another (a few
 * frames each; half end with `end`, half are closed by the client), then 110 rooms created, joined by
 * two clients and left. Before and after: the resident memory of the node and of workerd
 * (/proc/<pid>/status), their established TCP connections; at the end, once every entry's time to live
 * has passed, what the Durable Objects still store (their SQLite files in the persisted state folder).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalPlatform } from "../test/helpers/local-platform.ts";
import { durableObjectStorage } from "./do-storage.ts";
import { descendants, memoryMiB, tcpConnections } from "./proc.ts";
import { liveSession, longFile, polls, roomVisit, speechFrames } from "./soak-clients.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const SESSIONS = 500;
const ROOMS = 110;
const POLLS = 10_000;
const LONG_FILE_SEC = 2 * 3600;
const JOB_TTL_SEC = 20;
const ROOM_TTL_SEC = 5;
/** A finished LiveSession keeps its mark this long before its storage goes (live-session.ts). */
const SESSION_GRACE_MS = 60_000;
/** The long file must be done by then (the soak stays within about ten minutes). */
const LONG_FILE_DEADLINE_MS = 8 * 60_000;

const log = (message: string) => process.stderr.write(`soak: ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Snapshot {
  nodeRss: number;
  nodePeak: number;
  workerdRss: number;
  nodeTcp: string[];
  workerdTcp: number;
}

function snapshot(stack: LocalPlatform): Snapshot {
  const node = stack.nodePid("soak-node");
  if (!node) throw new Error("the soak node is not running");
  const wrangler = stack.workerPid();
  const workerd = wrangler ? descendants(wrangler, /workerd/) : [];
  const memory = memoryMiB(node);
  return {
    nodeRss: memory?.rss ?? Number.NaN,
    nodePeak: memory?.peak ?? Number.NaN,
    workerdRss: workerd.reduce((sum, pid) => sum + (memoryMiB(pid)?.rss ?? 0), 0),
    nodeTcp: tcpConnections(node),
    workerdTcp: workerd.reduce((sum, pid) => sum + tcpConnections(pid).length, 0),
  };
}

/** Resident memory of the node and of workerd now, as text for the log and the notes. */
function phase(stack: LocalPlatform): string {
  const now = snapshot(stack);
  return `node ${now.nodeRss.toFixed(0)} MiB, workerd ${now.workerdRss.toFixed(0)} MiB`;
}

async function mediaServer(bytes: Buffer) {
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "audio/ogg", "content-length": bytes.length });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function waitForEnd(base: string, key: string, taskId: string, deadline: number) {
  for (;;) {
    const response = await fetch(`${base}/transcribe/${taskId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const task = (await response.json()) as { status: string; result?: { duration_sec?: number } | null };
    if (task.status === "done" || task.status === "failed" || Date.now() > deadline) return task;
    await sleep(1_000);
  }
}

/**
 * Runs `step` `times` times in sequence, calling `sample` after every fifth of them (a leak grows
 * with the count, a warm-up plateau does not); returns the wall time in ms.
 */
async function repeat(
  times: number,
  step: (i: number) => Promise<unknown>,
  sample: (done: number) => void,
): Promise<number> {
  const started = Date.now();
  const every = Math.max(1, Math.floor(times / 5));
  for (let i = 0; i < times; i++) {
    await step(i);
    if ((i + 1) % every === 0) sample(i + 1);
  }
  return Date.now() - started;
}

export const soak: BenchGroup = async () => {
  const wallStarted = Date.now();
  const media = await mediaServer(readFileSync(await longFile(LONG_FILE_SEC)));
  const stack = await LocalPlatform.start({
    keys: 5,
    cronEveryMs: 60_000,
    apertium: true,
    nodeEnv: {},
    vars: { URL_ALLOWLIST: media.host, JOB_TTL_SEC: String(JOB_TTL_SEC), ROOM_TTL_SEC: String(ROOM_TTL_SEC) },
  });
  try {
    await stack.superviseNode("soak-node", {
      env: { VOXEDGE_MAX_TOKENS: "8", VOXEDGE_THREADS: "2", VOXEDGE_CONTENT_CONCURRENCY: "0" },
    });
    const [key = "", ...roomKeys] = stack.keys;
    const frames = await speechFrames(5);
    // Warm-up: code loaded and caches filled on every path, so "before" is the platform at work.
    await liveSession(stack.url, key, frames, "end");
    await roomVisit(stack.url, roomKeys[0] ?? key);
    await sleep(2_000);
    const before = snapshot(stack);
    log(`before: ${JSON.stringify(before)}`);

    const submitted = await fetch(`${stack.url}/transcribe`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ file_url: `http://${media.host}/long.ogg`, language: "en" }),
    });
    const { task_id: longTask } = (await submitted.json()) as { task_id: string };
    const longStarted = Date.now();
    const pollStarted = Date.now();
    await polls(stack.url, key, [longTask], POLLS, 8);
    const pollMs = Date.now() - pollStarted;
    const phases = [`after polls ${phase(stack)}`];
    log(`${POLLS} polls in ${(pollMs / 1000).toFixed(1)} s; ${phases.at(-1)}`);
    let refusals = 0;
    const sessionsMs = await repeat(
      SESSIONS,
      async (i) => {
        refusals += await liveSession(stack.url, key, frames, i % 2 === 0 ? "end" : "close");
      },
      (done) => phases.push(`${done} sessions: ${phase(stack)}`),
    );
    const sessionsOver = Date.now();
    log(
      `${SESSIONS} /ws sessions in ${(sessionsMs / 1000).toFixed(1)} s (${refusals} busy refusals); ${phases.at(-1)}`,
    );
    const roomsMs = await repeat(
      ROOMS,
      (i) => roomVisit(stack.url, roomKeys[i % roomKeys.length] ?? key),
      (done) => phases.push(`${done} rooms: ${phase(stack)}`),
    );
    const roomsOver = Date.now();
    log(`${ROOMS} rooms in ${(roomsMs / 1000).toFixed(1)} s; ${phases.at(-1)}`);
    const long = await waitForEnd(stack.url, key, longTask, longStarted + LONG_FILE_DEADLINE_MS);
    const longMs = Date.now() - longStarted;
    log(`long file: ${long.status} after ${(longMs / 1000).toFixed(0)} s`);
    // Every time to live runs out: a finished session's grace, the rooms', the task's fast entry.
    const expired = Math.max(
      sessionsOver + SESSION_GRACE_MS,
      roomsOver + ROOM_TTL_SEC * 1000,
      Date.now() + JOB_TTL_SEC * 1000,
    );
    await sleep(expired + 5_000 - Date.now());
    const after = snapshot(stack);
    log(`after: ${JSON.stringify(after)}`);
    await stack.stopWorker();
    const storage = durableObjectStorage(stack.state.dir);
    log(`storage: ${JSON.stringify(storage)}`);
    return figures({
      before,
      after,
      storage,
      pollMs,
      sessionsMs,
      roomsMs,
      refusals,
      long,
      longMs,
      phases,
      wallStarted,
    });
  } finally {
    await stack.stop();
    media.server.close();
  }
};

function figures(run: {
  before: Snapshot;
  after: Snapshot;
  storage: ReturnType<typeof durableObjectStorage>;
  pollMs: number;
  sessionsMs: number;
  roomsMs: number;
  refusals: number;
  long: { status: string; result?: { duration_sec?: number } | null };
  longMs: number;
  phases: string[];
  wallStarted: number;
}): BenchResult[] {
  const { before, after, storage } = run;
  const left = (name: string, why: string) => {
    const s = storage[name];
    return result(
      `soak.storage_left.${name}`,
      s?.entries ?? 0,
      0,
      "entries",
      `${why}; ${s?.objects ?? 0} object files, ${s?.withData ?? 0} still holding data, ${s?.alarms ?? 0} alarms pending`,
    );
  };
  return [
    result(
      "soak.live_sessions",
      SESSIONS,
      null,
      "sessions",
      `/ws, 5 frames each, in ${(run.sessionsMs / 1000).toFixed(0)} s; ${run.refusals} busy refusals retried`,
    ),
    result(
      "soak.rooms",
      ROOMS,
      null,
      "rooms",
      `created, joined by 2 clients (en, es), left; in ${(run.roomsMs / 1000).toFixed(0)} s`,
    ),
    result(
      "soak.polls_per_s",
      POLLS / (run.pollMs / 1000),
      null,
      "req/s",
      `${POLLS} polls, 8 at a time, while the long file decoded`,
    ),
    result(
      "soak.long_file.processing_s",
      run.longMs / 1000,
      LONG_FILE_SEC,
      "s",
      `2 h of looped speech (Opus), micro model: ${run.long.status}, duration_sec ${run.long.result?.duration_sec ?? "-"}; reference = audio length (ratio = RTF, shared CPU)`,
    ),
    result(
      "soak.node_rss_mib",
      after.nodeRss,
      before.nodeRss,
      "MiB",
      `inference node VmRSS after / before (warm); ${run.phases.join("; ")}`,
    ),
    result(
      "soak.node_rss_peak_mib",
      after.nodePeak,
      before.nodePeak,
      "MiB",
      "inference node VmHWM (peak) after / before",
    ),
    result(
      "soak.workerd_rss_mib",
      after.workerdRss,
      before.workerdRss,
      "MiB",
      `wrangler dev's workerd processes, VmRSS summed, after / before; ${run.phases.join("; ")}`,
    ),
    result(
      "soak.node_tcp_connections",
      after.nodeTcp.length,
      before.nodeTcp.length,
      "sockets",
      `node's established TCP connections after / before: ${after.nodeTcp.join(", ")}`,
    ),
    result(
      "soak.workerd_tcp_connections",
      after.workerdTcp,
      before.workerdTcp,
      "sockets",
      "workerd's established TCP connections after / before",
    ),
    left("JobState", `JOB_TTL_SEC=${JOB_TTL_SEC}: every task entry expired`),
    left("LiveSession", `${SESSIONS + 1} sessions over`),
    left("TranslationRoom", `ROOM_TTL_SEC=${ROOM_TTL_SEC}: ${ROOMS + 1} rooms expired`),
    left("LiveHub", "the node's registration lives in its socket, a stream's dial booking until its release"),
    left("LiveGate", "the /ws gate in storage only while held"),
    left("LiveKeyStreams", "a key's stream entries until their release"),
    result(
      "soak.storage.Dispatcher_rows",
      storage.Dispatcher?.entries ?? 0,
      null,
      "rows",
      "by design: finished tasks are remembered 24 h, plus the node and owner rows",
    ),
    result(
      "soak.wall_s",
      (Date.now() - run.wallStarted) / 1000,
      600,
      "s",
      "whole group, set-up included; reference = the 10-minute budget",
    ),
  ];
}
