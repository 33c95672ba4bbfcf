/**
 * The soak's clients: one /ws live session, one multi-device room, a run of polls, and the long file
 * (speech looped to a given length by ffmpeg, cached). Each does what a real client does and throws
 * when the platform answers otherwise.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { promisify } from "node:util";
import { float32ToPcm16 } from "../inference-node/live/pcm.ts";
import { RoomServerMessage } from "../protocol/rooms.ts";
import { openLive } from "../test/e2e/live-client.ts";
import { speechPcm, speechWav } from "../test/native/audio.ts";

const run = promisify(execFile);
const FRAME_BYTES = 3_200; // 100 ms of 16 kHz PCM16

/** A few frames of speech (PCM16, 100 ms each) for the sessions to send. */
export async function speechFrames(count: number): Promise<Buffer[]> {
  const pcm = float32ToPcm16(await speechPcm("Soak test speech for the live sessions."));
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  return Array.from({ length: count }, (_, i) => bytes.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES));
}

/**
 * One /ws session: waits for `ready` (the one-session gate refuses with 1013 while the previous session
 * is still being released: tried again), sends `frames`, then ends it: with `end` (the server closes
 * with 1000 after the last final) or by closing from the client side. Returns the refusals seen.
 */
export async function liveSession(base: string, key: string, frames: Buffer[], endWith: "end" | "close") {
  for (let refusals = 0; refusals < 50; refusals++) {
    const client = await openLive(`${base}/ws?language=en`, { authorization: `Bearer ${key}` });
    if (typeof client === "number") throw new Error(`/ws answered ${client}`);
    const first = await client.waitUntil((m) => m.type === "ready" || m.type === "error", "ready", 15_000);
    if (first.type === "error") {
      const closed = await client.closeWithin(5_000);
      if (closed.code !== 1013) throw new Error(`/ws closed ${closed.code} ${closed.reason}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    for (const frame of frames) client.ws.send(frame);
    if (endWith === "end") client.sendJson({ type: "end" });
    else client.ws.close(1000);
    const closed = await client.closeWithin(15_000);
    if (closed.code !== 1000) throw new Error(`/ws session closed ${closed.code} ${closed.reason}`);
    return refusals;
  }
  throw new Error("/ws stayed busy for 50 tries");
}

/** Creates a room (en/es) with `key`, joins it with two clients, each sends quiet frames, both leave. */
export async function roomVisit(base: string, key: string): Promise<void> {
  const created = await fetch(`${base}/api/v1/session/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ language: "en", translate_language: "es" }),
  });
  if (created.status !== 200) throw new Error(`session/create: ${created.status} ${await created.text()}`);
  const { conversation_id } = (await created.json()) as { conversation_id: string };
  const join = async (language: string) => {
    const client = await openLive(`${base}/api/v1/ws/${conversation_id}?language=${language}`, {}, (json) =>
      RoomServerMessage.parse(json),
    );
    if (typeof client === "number") throw new Error(`room answered ${client}`);
    await client.waitFor("welcome", 10_000);
    return client;
  };
  const a = await join("en");
  const b = await join("es");
  await a.waitUntil((m) => m.type === "user_joined" && m.client_count === 2, "second participant", 10_000);
  // Quiet frames: activity for the room, no engine stream (under -50 dBFS).
  const quiet = Buffer.alloc(FRAME_BYTES);
  for (const client of [a, b]) for (let i = 0; i < 3; i++) client.ws.send(quiet);
  b.ws.close(1000);
  await a.waitFor("user_left", 10_000);
  a.ws.close(1000);
  await Promise.all([a.closeWithin(10_000), b.closeWithin(10_000)]);
}

/** `count` polls of the given tasks, `concurrency` at a time; every answer must be 200. */
export async function polls(
  base: string,
  key: string,
  taskIds: string[],
  count: number,
  concurrency: number,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const taskId = taskIds[next++ % taskIds.length];
        const response = await fetch(`${base}/transcribe/${taskId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        if (response.status !== 200) throw new Error(`poll: ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
}

/** Speech looped to `seconds` as 16 kHz mono Opus (small enough to serve), cached under bench/.cache. */
export async function longFile(seconds: number): Promise<string> {
  const file = `bench/.cache/soak-speech-${seconds}s.ogg`;
  if (existsSync(file)) return file;
  mkdirSync("bench/.cache", { recursive: true });
  const clip = await speechWav(
    "This long recording loops one passage of synthetic speech. It keeps a node busy for hours of audio.",
  );
  const tmp = `${file}.${process.pid}.tmp.ogg`;
  await run("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-stream_loop",
    "-1",
    "-i",
    clip,
    "-t",
    String(seconds),
    "-ac",
    "1",
    "-ar",
    "16000",
    "-c:a",
    "libopus",
    "-b:a",
    "16k",
    tmp,
  ]);
  renameSync(tmp, file);
  return file;
}
