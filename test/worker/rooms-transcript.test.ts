import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { bearer, call, createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, pcmFrame, until } from "./rooms-helpers.ts";

/**
 * A room's transcript afterwards: every final with its translations, for the key that created the room
 * (anyone else: 404), in JSON, text, SRT and VTT, as spoken, in one language or both; kept after the
 * room ends until ROOM_TRANSCRIPT_TTL_SEC, deleted on request, and made into a note.
 */

let host: { id: string; key: string };
let node: FakeNode | null = null;
const open: TestSocket[] = [];
const room = (id: string) => env.TRANSLATION_ROOM.get(env.TRANSLATION_ROOM.idFromName(id));

beforeAll(async () => {
  host = await createKey("room-host");
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded);
});

/** A room where an English speaker says two things, each translated into Spanish. */
async function roomWithFinals(): Promise<string> {
  node = await FakeNode.connect("room-engine", 2);
  const id = await newSession(host.key);
  const a = await join(id, { language: "en", client_id: "speaker-a" });
  const b = await join(id, { language: "es", client_id: "reader-b" });
  open.push(a.socket, b.socket);
  await until(a.socket, "partner_language");
  a.socket.send(pcmFrame(true));
  const { session } = await node.acceptAssignment();
  await session.json();
  const said = [
    { text: "Good morning.", es: "Buenos días.", id: "u1" },
    { text: "The river is long.", es: "El río es largo.", id: "u2" },
  ];
  for (const { text, es, id: utterance } of said) {
    session.send({
      type: "final",
      text,
      start: 0,
      end: 1.5,
      language: "en",
      utterance_id: utterance,
      translations: { es },
      translation_errors: [],
    });
    await until(b.socket, "transcript");
  }
  return id;
}

const transcript = (id: string, query = "", key = host.key) =>
  call(`/api/v1/session/${id}/transcript${query}`, { headers: bearer(key) });

describe("room transcripts", () => {
  it("gives the host every final, as spoken, in Spanish or both, in JSON, text, SRT and VTT", async () => {
    const id = await roomWithFinals();
    const json = (await (await transcript(id)).json()) as {
      lines: {
        speaker: string;
        text: string;
        original: string;
        language: string;
        start: number;
        end: number;
      }[];
    };
    expect(json.lines.map((l) => [l.speaker, l.text])).toEqual([
      ["Speaker 1", "Good morning."],
      ["Speaker 1", "The river is long."],
    ]);
    // Seconds from the room's start, each line ending when its final arrived.
    for (const line of json.lines) expect(line.start).toBeGreaterThanOrEqual(0);
    expect(json.lines[0]!.end).toBeGreaterThanOrEqual(json.lines[0]!.start);
    expect(json.lines[1]!.end).toBeGreaterThanOrEqual(json.lines[0]!.end);

    const spanish = (await (await transcript(id, "?language=es")).json()) as { lines: { text: string }[] };
    expect(spanish.lines.map((l) => l.text)).toEqual(["Buenos días.", "El río es largo."]);

    const srt = await transcript(id, "?format=srt&language=es&bilingual=true");
    expect(srt.headers.get("content-type")).toContain("application/x-subrip");
    expect(srt.headers.get("content-disposition")).toContain(".srt");
    const srtText = await srt.text();
    expect(srtText).toMatch(
      /^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\nSpeaker 1: Good morning\.\nBuenos días\.\n\n2\n/,
    );
    const vtt = await (await transcript(id, "?format=vtt&language=es")).text();
    expect(vtt.startsWith("WEBVTT")).toBe(true);
    expect(vtt).toContain("<v Speaker 1>Buenos días.");
    expect(await (await transcript(id, "?format=txt")).text()).toBe(
      "Speaker 1: Good morning.\nSpeaker 1: The river is long.\n",
    );
  });

  it("answers 404 to another key, 401 without one, 400 to a bad language or bilingual alone", async () => {
    const id = await roomWithFinals();
    const other = await createKey();
    expect((await transcript(id, "", other.key)).status).toBe(404);
    expect((await transcript("0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b")).status).toBe(404);
    expect((await call(`/api/v1/session/${id}/transcript`)).status).toBe(401);
    expect((await transcript(id, "?language=klingon")).status).toBe(400);
    expect((await transcript(id, "?bilingual=true")).status).toBe(400);
    expect((await transcript(id, "?format=docx")).status).toBe(422);
    const deleted = await call(`/api/v1/session/${id}/transcript`, {
      method: "DELETE",
      headers: bearer(other.key),
    });
    expect(deleted.status).toBe(404);
    expect((await transcript(id)).status).toBe(200);
  });

  it("keeps the transcript after the room ends until its time is up, then nothing is left", async () => {
    const id = await roomWithFinals();
    // The room reaches ROOM_MAX_AGE_SEC and ends.
    await runInDurableObject(room(id), async (_i, state) => {
      const session = (await state.storage.get<Record<string, unknown>>("session")) ?? {};
      await state.storage.put("session", { ...session, created_at: Date.now() - 43_201_000 });
    });
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect((await call(`/api/v1/session/${id}`)).status).toBe(404);
    expect((await transcript(id)).status).toBe(200);

    // ROOM_TRANSCRIPT_TTL_SEC later, the alarm deletes it.
    await runInDurableObject(room(id), async (_i, state) => {
      const record = (await state.storage.get<Record<string, unknown>>("transcript-record")) ?? {};
      await state.storage.put("transcript-record", { ...record, delete_at: Date.now() - 1 });
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(room(id))).toBe(true);
    expect((await transcript(id)).status).toBe(404);
    const left = await runInDurableObject(room(id), async (_i, state) => (await state.storage.list()).size);
    expect(left).toBe(0);
  });

  it("deletes it on the host's request, and makes a note of it in one language", async () => {
    const id = await roomWithFinals();
    const made = await call(`/api/v1/session/${id}/transcript/note`, {
      method: "POST",
      headers: { ...bearer(host.key), "content-type": "application/json" },
      body: JSON.stringify({ language: "es", title: "Clase del lunes" }),
    });
    expect(made.status).toBe(201);
    const note = (await made.json()) as { note_id: string; title: string; language: string };
    expect(note).toMatchObject({ title: "Clase del lunes", language: "es" });
    const read = (await (await call(`/v1/notes/${note.note_id}`, { headers: bearer(host.key) })).json()) as {
      content: string;
    };
    expect(read.content).toBe("Speaker 1: Buenos días.\nSpeaker 1: El río es largo.");

    const gone = await call(`/api/v1/session/${id}/transcript`, {
      method: "DELETE",
      headers: bearer(host.key),
    });
    expect(gone.status).toBe(204);
    expect((await transcript(id)).status).toBe(404);
  });
});
