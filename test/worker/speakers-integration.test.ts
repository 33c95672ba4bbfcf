import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys, speakers } from "../../platform/schema.ts";
import { pcmWavHeader } from "../../protocol/wav.ts";
import { generateServiceKey } from "../../worker/auth/key-material.ts";
import { sweepRevokedKeySpeakers } from "../../worker/speakers/revoked-key-sweep.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { sampleResult, TestNode } from "./node-client.ts";

/**
 * Enrolled speakers (/v1/speakers) against the Worker's real fetch handler, D1 and R2: enrolment and
 * its checks, the key's isolation, deletion leaving nothing, and an async job's known_speakers
 * resolved to the enrolled clips a TestNode reads through its lease.
 */

beforeEach(resetDispatcher);

/** A 16 kHz mono 16-bit WAV of `seconds` of a quiet tone (the Worker reads only its header). */
function wav(seconds: number): Uint8Array {
  const samples = Math.round(seconds * 16_000);
  const body = new Uint8Array(samples * 2);
  const view = new DataView(body.buffer);
  for (let i = 0; i < samples; i++) view.setInt16(i * 2, Math.round(3000 * Math.sin(i / 8)), true);
  const header = pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, body.byteLength);
  const file = new Uint8Array(header.byteLength + body.byteLength);
  file.set(header);
  file.set(body, header.byteLength);
  return file;
}

function enrol(key: string, name: string, bytes: Uint8Array, filename = "voice.wav") {
  const form = new FormData();
  form.set("name", name);
  form.set("file", new File([bytes], filename, { type: "audio/wav" }));
  return call("/v1/speakers", { method: "POST", headers: bearer(key), body: form });
}

async function enrolled(key: string, name: string, seconds = 3): Promise<{ id: string; name: string }> {
  const response = await enrol(key, name, wav(seconds));
  expect(response.status).toBe(201);
  return response.json();
}

type OpenAIErrorBody = {
  error: { message: string; type: string; param: string | null; code: string | null };
};

async function speakerObjects(ownerId: string) {
  return (await env.MEDIA.list({ prefix: `speakers/${encodeURIComponent(ownerId)}/` })).objects;
}

describe("/v1/speakers", () => {
  it("enrols, lists, reads and deletes a speaker, leaving no clip and no row", async () => {
    const { id: keyId, key } = await createKey();
    const clip = wav(4);
    const created = await enrol(key, "  agent ", clip);
    expect(created.status).toBe(201);
    const speaker = (await created.json()) as Record<string, unknown>;
    expect(speaker).toMatchObject({
      object: "speaker",
      name: "agent",
      bytes: clip.byteLength,
      content_type: "audio/wav",
      duration_sec: 4,
    });
    expect(speaker.id).toMatch(/^spk_[0-9a-f]{32}$/);
    const [stored] = await speakerObjects(keyId);
    expect(stored?.size).toBe(clip.byteLength);

    const list = await call("/v1/speakers", { headers: bearer(key) });
    expect(await list.json()).toEqual({ object: "list", data: [speaker], has_more: false });
    const read = await call(`/v1/speakers/${speaker.id}`, { headers: bearer(key) });
    expect(await read.json()).toEqual(speaker);

    const deleted = await call(`/v1/speakers/${speaker.id}`, { method: "DELETE", headers: bearer(key) });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: speaker.id, object: "speaker.deleted", deleted: true });
    expect(await speakerObjects(keyId)).toEqual([]);
    expect(await db(env).select().from(speakers).where(eq(speakers.owner_key_id, keyId)).all()).toEqual([]);
    const gone = await call(`/v1/speakers/${speaker.id}`, { headers: bearer(key) });
    expect(gone.status).toBe(404);
  });

  it("takes the clip as a data URL in JSON", async () => {
    const { key } = await createKey();
    const reference = `data:audio/wav;base64,${btoa(String.fromCharCode(...wav(2.5)))}`;
    const response = await call("/v1/speakers", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ name: "customer", reference }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: "customer", duration_sec: 2.5 });
  });

  it("answers another key's speaker 404 in OpenAI's envelope, and lets it keep the same name", async () => {
    const owner = await createKey("owner");
    const other = await createKey("other");
    const speaker = await enrolled(owner.key, "agent");
    for (const method of ["GET", "DELETE"]) {
      const response = await call(`/v1/speakers/${speaker.id}`, { method, headers: bearer(other.key) });
      expect(response.status).toBe(404);
      const body = (await response.json()) as OpenAIErrorBody;
      expect(body.error.type).toBe("invalid_request_error");
      expect(body.error.message).toMatch(/no speaker spk_/);
    }
    const list = (await (await call("/v1/speakers", { headers: bearer(other.key) })).json()) as {
      data: unknown[];
    };
    expect(list.data).toEqual([]);
    expect(await speakerObjects(owner.id)).toHaveLength(1);
    await enrolled(other.key, "agent");
  });

  it("refuses a taken name with 409, and a key at SPEAKERS_MAX_PER_KEY with 409", async () => {
    const { id: keyId, key } = await createKey();
    const first = await enrolled(key, "agent");
    const duplicate = await enrol(key, "agent", wav(3));
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get("x-should-retry")).toBe("false");
    const taken = (await duplicate.json()) as OpenAIErrorBody;
    expect(taken.error).toMatchObject({ param: "name", code: "speaker_name_taken" });
    expect(taken.error.message).toContain(first.id);

    // the other 99 of the 100 a key may keep, written straight into D1
    const now = Date.now();
    const rows = Array.from({ length: 99 }, (_, i) => ({
      id: `spk_filler${i}`,
      owner_key_id: keyId,
      name: `voice ${i}`,
      object_key: `speakers/${keyId}/spk_filler${i}`,
      content_type: "audio/wav",
      bytes: 1,
      duration_sec: 3,
      created_at: now + i,
    }));
    for (let i = 0; i < rows.length; i += 10)
      await db(env)
        .insert(speakers)
        .values(rows.slice(i, i + 10));
    const full = await enrol(key, "one more", wav(3));
    expect(full.status).toBe(409);
    expect(((await full.json()) as OpenAIErrorBody).error).toMatchObject({ code: "speaker_limit_reached" });
    // the refused enrolments left no clip behind
    expect(await speakerObjects(keyId)).toHaveLength(1);
  });

  it("refuses a 1 s clip, a 40 s clip, a file that is not audio and an unusable name with a 400 that says why", async () => {
    const { id: keyId, key } = await createKey();
    const cases: [Promise<Response>, string, RegExp][] = [
      [enrol(key, "short", wav(1)), "file", /file is 1\.0 s long: a reference clip must be 2-30 s/],
      [enrol(key, "long", wav(40)), "file", /file is 40\.0 s long: a reference clip must be 2-30 s/],
      [
        enrol(key, "pdf", new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3\n1 0 obj"), "voice.pdf"),
        "file",
        /file is not an audio file/,
      ],
      [enrol(key, "SPEAKER_00", wav(3)), "name", /diarizer's own label/],
      [enrol(key, "a,b", wav(3)), "name", /comma/],
      [enrol(key, "all", wav(3)), "name", /every enrolled voice/],
      // A long name is quoted in part, with its length, not sent back whole.
      [
        enrol(key, "n".repeat(300), wav(3)),
        "name",
        /^"n{64}…" \(300 characters\) cannot name a speaker: it is longer than 64 characters$/,
      ],
    ];
    for (const [response, param, message] of cases) {
      const answer = await response;
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as OpenAIErrorBody;
      expect(body.error.param).toBe(param);
      expect(body.error.message).toMatch(message);
    }
    expect(await speakerObjects(keyId)).toEqual([]);
  });

  it("deletes a revoked key's speakers, clips and rows, on the cron sweep, and keeps a live key's", async () => {
    const revoked = await createKey("revoked");
    const live = await createKey("live");
    await enrolled(revoked.key, "agent");
    await enrolled(revoked.key, "customer");
    await enrolled(live.key, "agent");
    await db(env).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, revoked.id));
    await sweepRevokedKeySpeakers(env);
    expect(await speakerObjects(revoked.id)).toEqual([]);
    expect(await db(env).select().from(speakers).where(eq(speakers.owner_key_id, revoked.id)).all()).toEqual(
      [],
    );
    expect(await speakerObjects(live.id)).toHaveLength(1);
    expect(
      await db(env).select().from(speakers).where(eq(speakers.owner_key_id, live.id)).all(),
    ).toHaveLength(1);
  });

  it("keeps a user's speakers apart from the service key acting for them and from other users", async () => {
    const made = await generateServiceKey();
    await db(env).insert(apiKeys).values({
      id: made.id,
      name: "backend",
      keyHash: made.hash,
      prefix: made.prefix,
      createdAt: Date.now(),
      kind: "service",
    });
    const as = (user?: string) => ({ ...bearer(made.secret), ...(user && { "x-voxedge-user": user }) });
    const form = new FormData();
    form.set("name", "agent");
    form.set("file", new File([wav(3)], "agent.wav", { type: "audio/wav" }));
    const created = await call("/v1/speakers", { method: "POST", headers: as("alice"), body: form });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect(await speakerObjects("user:alice")).toHaveLength(1);
    expect((await call(`/v1/speakers/${id}`, { headers: as("alice") })).status).toBe(200);
    expect((await call(`/v1/speakers/${id}`, { headers: as("bob") })).status).toBe(404);
    expect((await call(`/v1/speakers/${id}`, { headers: as() })).status).toBe(404);
  });

  it("refuses a call without a key in OpenAI's envelope", async () => {
    const response = await call("/v1/speakers");
    expect(response.status).toBe(401);
    expect(((await response.json()) as OpenAIErrorBody).error.message).toBeTruthy();
  });
});

describe("known_speakers on async jobs", () => {
  function upload(key: string, knownSpeakers: string) {
    const form = new FormData();
    form.set("file", new File([wav(5)], "call.wav", { type: "audio/wav" }));
    form.set("language", "en");
    form.set("known_speakers", knownSpeakers);
    return call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
  }

  it("hands the node every enrolled clip for all, and the result carries speaker_name beside the label", async () => {
    const { key } = await createKey();
    const agentClip = wav(3);
    const agent = await (await enrol(key, "agent", agentClip)).json();
    await enrolled(key, "customer", 6);
    const accepted = await upload(key, "all");
    expect(accepted.status).toBe(200);
    const { task_id } = (await accepted.json()) as { task_id: string };

    const node = new TestNode();
    const [lease] = await node.lease(1, 10_000);
    if (lease?.kind !== "transcribe") throw new Error("no transcription lease");
    expect(lease.params.known_speakers).toEqual([
      { name: "agent", object_key: expect.stringMatching(/^speakers\/key_/), enrolled: true },
      { name: "customer", object_key: expect.stringMatching(/^speakers\/key_/), enrolled: true },
    ]);
    const served = await node.get(`/leases/${lease.lease_id}/speakers/0`);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(agentClip);
    expect(agent).toMatchObject({ name: "agent" });

    const segment = (start: number, text: string) => ({
      start,
      end: start + 1,
      start_fmt: `00:0${start}.000`,
      end_fmt: `00:0${start + 1}.000`,
      text,
    });
    const segments = [
      { ...segment(0, "Hello there."), speaker: "SPEAKER_00", speaker_name: "agent" },
      { ...segment(2, "Hi"), speaker: "SPEAKER_01" },
    ];
    const result = { ...sampleResult("Hello there. Hi"), segments, segment_count: 2 };
    expect((await node.complete(lease.lease_id, result)).status).toBe(204);
    const poll = await call(`/transcribe/${task_id}`, { headers: bearer(key) });
    const view = (await poll.json()) as { result: { segments: Record<string, unknown>[] } };
    expect(view.result.segments.map((s) => [s.speaker, s.speaker_name])).toEqual([
      ["SPEAKER_00", "agent"],
      ["SPEAKER_01", undefined],
    ]);
  });

  it("refuses a name the key has not enrolled (another key's included) with the route's 400", async () => {
    const owner = await createKey("owner");
    const other = await createKey("other");
    await enrolled(owner.key, "agent");
    const before = (await env.MEDIA.list({ prefix: "uploads/" })).objects.length;
    const response = await upload(other.key, "agent, nobody");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { detail: string; code: string };
    expect(body.code).toBe("bad_request");
    expect(body.detail).toMatch(
      /known_speakers names no enrolled speaker of this API key: "agent", "nobody"/,
    );
    // the refused upload's file is not kept
    expect((await env.MEDIA.list({ prefix: "uploads/" })).objects.length).toBe(before);
  });
});

describe("known_speakers on the compatible endpoint (Voxedge extension)", () => {
  function transcribe(key: string, fields: Record<string, string>) {
    const form = new FormData();
    form.set("file", new File([wav(5)], "call.wav", { type: "audio/wav" }));
    form.set("model", "gpt-4o-transcribe-diarize");
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return call("/v1/audio/transcriptions", { method: "POST", headers: bearer(key), body: form });
  }

  it("names a diarized_json speaker after an enrolled voice", async () => {
    const { key } = await createKey();
    await enrolled(key, "agent");
    const node = new TestNode();
    const [response, lease] = await Promise.all([
      transcribe(key, { response_format: "diarized_json", known_speakers: "agent" }),
      (async () => {
        const [leased] = await node.lease(1, 10_000);
        if (leased?.kind !== "transcribe") throw new Error("no transcription lease");
        const segments = [
          {
            start: 0,
            end: 1,
            start_fmt: "00:00.000",
            end_fmt: "00:01.000",
            text: "Hi.",
            speaker: "SPEAKER_00",
          },
          {
            start: 1,
            end: 2,
            start_fmt: "00:01.000",
            end_fmt: "00:02.000",
            text: "Hello.",
            speaker: "SPEAKER_01",
            speaker_name: "agent",
          },
        ];
        await node.complete(leased.lease_id, { ...sampleResult("Hi. Hello."), segments, segment_count: 2 });
        return leased;
      })(),
    ]);
    expect(lease.params.known_speakers).toEqual([
      { name: "agent", object_key: expect.stringMatching(/^speakers\//), enrolled: true },
    ]);
    expect(response.status).toBe(200);
    const diarized = (await response.json()) as { segments: { speaker: string }[] };
    expect(diarized.segments.map((segment) => segment.speaker)).toEqual(["A", "agent"]);
  });

  it("refuses a name not enrolled, and known_speakers without diarized_json, in OpenAI's envelope", async () => {
    const { key } = await createKey();
    const unknown = await transcribe(key, { response_format: "diarized_json", known_speakers: "nobody" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as OpenAIErrorBody).error).toMatchObject({
      param: "known_speakers",
      message: expect.stringMatching(/"nobody"/),
    });
    const plain = await transcribe(key, { response_format: "json", known_speakers: "all" });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as OpenAIErrorBody).error).toMatchObject({
      param: "known_speakers",
      code: "unsupported_value",
    });
  });
});
