import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import type { Note } from "../../worker/schemas/notes.ts";
import { created, leaseTask } from "./content-helpers.ts";
import { bearer, call, createKey, resetDispatcher } from "./helpers.ts";
import { bytes, callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/** POST /v2/create/shorts's `aspect` in workerd, and a video's SRT/VTT sidecars listed with it. */

beforeEach(resetDispatcher);

async function noteId(key: string): Promise<string> {
  const response = await call("/v1/notes", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({
      content: "The Mekong flows through six countries. It feeds sixty million people.",
    }),
  });
  return ((await response.json()) as Note).note_id;
}

function createShort(key: string, fields: Record<string, string>) {
  return call("/v2/create/shorts", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

describe("shorts aspect", () => {
  it("takes 9:16 (default), 16:9 and 1:1 into the task's params; anything else is invalid_aspect", async () => {
    const { key } = await createKey();
    const note = await noteId(key);
    const aspectOf = async (fields: Record<string, string>) =>
      (
        await readTask(
          env,
          await created(await createShort(key, { note_id: note, voice_id: "en-male", ...fields })),
        )
      )?.params;
    expect(await aspectOf({})).toMatchObject({ aspect: "9:16" });
    expect(await aspectOf({ aspect: "16:9" })).toMatchObject({ aspect: "16:9" });
    expect(await aspectOf({ aspect: "1:1" })).toMatchObject({ aspect: "1:1" });
    for (const aspect of ["4:3", "16x9", "9/16", "portrait"]) {
      const response = await createShort(key, { note_id: note, voice_id: "en-male", aspect });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error_key: string }).error_key).toBe("invalid_aspect");
    }
  });

  it("lists a short's SRT and VTT sidecars in files beside its video_url", async () => {
    const { key } = await createKey();
    const taskId = await created(
      await createShort(key, { note_id: await noteId(key), voice_id: "en-male", aspect: "1:1" }),
    );
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease.params).toMatchObject({ aspect: "1:1" });
    const srt = new TextEncoder().encode("1\n00:00:00,000 --> 00:00:01,200\nThe Mekong\n\n");
    const outputs = [];
    for (const [name, role, type, body] of [
      ["short.mp4", "video", "video/mp4", bytes(4000, 3)],
      ["short.srt", "srt", "application/x-subrip", srt],
      [
        "short.vtt",
        "vtt",
        "text/vtt",
        new TextEncoder().encode("WEBVTT\n\n00:00:00.000 --> 00:00:01.200\nThe Mekong\n\n"),
      ],
    ] as const) {
      const response = await node.uploadOutput(lease.lease_id, name, body, type);
      expect(response.status, await response.clone().text()).toBe(200);
      const stored = (await response.json()) as { object_key: string; bytes: number; content_type: string };
      outputs.push({ role, ...stored });
    }
    const done = await node.complete(
      lease.lease_id,
      { note_id: "n", title: "The Mekong", language: "en", duration: 9, aspect: "1:1", outputs },
      "shorts",
    );
    expect(done.status).toBe(204);
    const poll = await call(`/v1/create/tasks/${taskId}/result`, { headers: bearer(key) });
    const data = (
      (await poll.json()) as { data: { video_url: string; files: { role: string; url: string }[] } }
    ).data;
    expect(data).toMatchObject({ aspect: "1:1" });
    expect(data.files.map((f) => f.role)).toEqual(["video", "srt", "vtt"]);
    expect(data.video_url).toBe(data.files[0]?.url);
    const sidecar = await callMinted(data.files[1]?.url ?? "");
    expect(sidecar.headers.get("content-type")).toBe("application/x-subrip; charset=utf-8");
    expect(new Uint8Array(await sidecar.arrayBuffer())).toEqual(srt);
  });
});
