import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { readTask } from "../../platform/task-store.ts";
import { CONTENT_ERROR_CODES } from "../../protocol/content.ts";
import { created, createForm, createNote, errorKey, leaseTask } from "./content-helpers.ts";
import { bearer, call, createKey, NODE_TOKEN, resetDispatcher } from "./helpers.ts";
import { bytes, callMinted } from "./ingest-helpers.ts";
import { TestNode } from "./node-client.ts";

/** The content service in workerd: catalogs, create forms and their error_keys, polling every status. */

beforeEach(resetDispatcher);

const RENDER_KINDS = ["shorts", "quiz_video", "slide"] as const;

const note = (
  key: string,
  content = "The Mekong flows through six countries. It feeds sixty million people.",
) => createNote(key, content);

async function poll(taskId: string, key: string) {
  const response = await call(`/v1/create/tasks/${taskId}/result`, { headers: { "x-api-key": key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("catalogs", () => {
  it("list voices (en and vi, male and female), backgrounds and templates with preview links", async () => {
    const { key } = await createKey();
    const voices = (await (await call("/v1/voices", { headers: bearer(key) })).json()) as {
      voices: { voice_id: string; language: string; gender: string; sample_url: string }[];
    };
    for (const language of ["en", "vi"]) {
      for (const gender of ["male", "female"]) {
        expect(
          voices.voices.some((v) => v.language === language && v.gender === gender),
          `${language} ${gender}`,
        ).toBe(true);
      }
    }
    expect(voices.voices[0]?.sample_url).toMatch(
      /^http:\/\/voxedge\.test\/v1\/catalog\/previews\/voice-.+\.mp3$/,
    );
    const { backgrounds } = (await (await call("/v1/backgrounds", { headers: bearer(key) })).json()) as {
      backgrounds: { bg_id: string; kind: string; preview_url: string }[];
    };
    expect(backgrounds.length).toBeGreaterThanOrEqual(3);
    const { templates } = (await (await call("/v1/templates", { headers: bearer(key) })).json()) as {
      templates: { kind: string }[];
    };
    expect(templates.filter((t) => t.kind === "slide").length).toBeGreaterThanOrEqual(3);
    expect(templates.filter((t) => t.kind === "quiz_video").length).toBeGreaterThanOrEqual(2);
    expect(await errorKey(await call("/v1/voices"), 401)).toBe("unauthorized");
  });

  it("serves a preview a node uploaded, without a key; refuses names outside the catalog", async () => {
    const file = "voice-en-female.mp3";
    expect(await errorKey(await call(`/v1/catalog/previews/${file}`), 404)).toBe("preview_not_found");
    const data = bytes(3000, 9);
    const put = (name: string, token = NODE_TOKEN) =>
      call(`/internal/v1/previews/${name}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "audio/mpeg", "content-length": "3000" },
        body: data,
      });
    expect((await put(file, "not-the-token")).status).toBe(401);
    expect((await put(file)).status).toBe(204);
    expect((await put("secrets.txt")).status).toBe(404);
    const served = await call(`/v1/catalog/previews/${file}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("audio/mpeg");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(data);
    const listed = await call("/internal/v1/previews", {
      headers: { authorization: `Bearer ${NODE_TOKEN}` },
    });
    expect(((await listed.json()) as { files: string[] }).files).toContain(file);
  });
});

describe("POST /v2/create/*", () => {
  it("queues a render of the caller's note, with the note copied into the task", async () => {
    const { id, key } = await createKey();
    const source = await note(key);
    const response = await createForm("shorts", key, {
      note_id: source.note_id,
      voice_id: "en-female",
      clip_duration: "20",
    });
    const taskId = await created(response.clone());
    expect(((await response.json()) as { data: { user_id: string } }).data.user_id).toBe(id);
    const record = await readTask(env, taskId);
    expect(record).toMatchObject({
      kind: "shorts",
      status: "queued",
      params: {
        note: { note_id: source.note_id, content: source.content, language: "en" },
        voice_id: "en-female",
        clip_duration: 20,
        is_audio_only: false,
        bg_id: "aurora",
      },
    });
    const slide = await readTask(
      env,
      await created(
        await createForm("slide", key, {
          note_id: source.note_id,
          template_id: "slide-clean",
          slide_count_range: "3-4",
          language: "vi",
        }),
      ),
    );
    expect(slide?.params).toMatchObject({
      slide_count: { min: 3, max: 4 },
      language: "vi",
      community: false,
    });
    const quiz = await readTask(
      env,
      await created(await createForm("quiz-video", key, { note_id: source.note_id, voice_id: "vi-male" })),
    );
    expect(quiz?.params).toMatchObject({ template_id: "quiz-classic", bg_id: "aurora" });
  });

  it("answers every request error at once with its error_key, and creates no task", async () => {
    const { id, key } = await createKey();
    const other = await createKey("other");
    const mine = (await note(key)).note_id;
    const theirs = (await note(other.key)).note_id;
    const cases: [string, Record<string, string>, number, string][] = [
      ["shorts", { voice_id: "en-male" }, 400, "missing_field"],
      ["shorts", { note_id: mine }, 400, "missing_field"],
      ["shorts", { note_id: theirs, voice_id: "en-male" }, 404, "note_not_found"],
      ["shorts", { note_id: mine, voice_id: "robot" }, 400, "unknown_voice"],
      ["shorts", { note_id: mine, voice_id: "en-male", bg_id: "beach.mp4" }, 400, "unknown_background"],
      ["shorts", { note_id: mine, voice_id: "en-male", clip_duration: "4" }, 400, "invalid_clip_duration"],
      ["shorts", { note_id: mine, voice_id: "en-male", clip_duration: "181" }, 400, "invalid_clip_duration"],
      ["shorts", { note_id: mine, voice_id: "en-male", clip_duration: "30.5" }, 400, "invalid_clip_duration"],
      ["shorts", { note_id: mine, voice_id: "en-male", is_audio_only: "yes" }, 400, "invalid_boolean"],
      [
        "quiz-video",
        { note_id: mine, voice_id: "en-male", template_id: "slide-clean" },
        400,
        "unknown_template",
      ],
      ["slide", { note_id: mine }, 400, "missing_field"],
      ["slide", { note_id: mine, template_id: "quiz-neon" }, 400, "unknown_template"],
      [
        "slide",
        { note_id: mine, template_id: "slide-clean", slide_count_range: "8-5" },
        400,
        "invalid_slide_count_range",
      ],
      [
        "slide",
        { note_id: mine, template_id: "slide-clean", slide_count_range: "0-3" },
        400,
        "invalid_slide_count_range",
      ],
      [
        "slide",
        { note_id: mine, template_id: "slide-clean", slide_count_range: "5-31" },
        400,
        "invalid_slide_count_range",
      ],
      [
        "slide",
        { note_id: mine, template_id: "slide-clean", slide_count_range: "five" },
        400,
        "invalid_slide_count_range",
      ],
      [
        "slide",
        { note_id: mine, template_id: "slide-clean", language: "Klingon" },
        400,
        "unsupported_language",
      ],
      ["slide", { note_id: mine, template_id: "slide-clean", community: "maybe" }, 400, "invalid_boolean"],
    ];
    for (const [path, fields, status, key_] of cases) {
      expect(
        await errorKey(await createForm(path, key, fields), status),
        `${path} ${JSON.stringify(fields)}`,
      ).toBe(key_);
    }
    // A value that is not an id is quoted in part, with its length, not sent back whole.
    const long = await createForm("shorts", key, { note_id: mine, voice_id: "v".repeat(5000) });
    expect(long.status).toBe(400);
    const { message } = (await long.json()) as { message: string };
    expect(message).toBe(`voice_id "${"v".repeat(64)}…" (5000 characters) is not one of GET /v1/voices`);
    const json = await call("/v2/create/shorts", {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json" },
      body: JSON.stringify({ note_id: mine, voice_id: "en-male" }),
    });
    expect(await errorKey(json, 415)).toBe("unsupported_media_type");
    const huge = await createForm("shorts", key, {
      note_id: mine,
      voice_id: "en-male",
      pad: "x".repeat(20_000),
    });
    expect(await errorKey(huge, 413)).toBe("payload_too_large");
    expect(
      await errorKey(await createForm("shorts", "vx_bad", { note_id: mine, voice_id: "en-male" }), 401),
    ).toBe("unauthorized");
    const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner_key_id = ?")
      .bind(id)
      .all();
    expect(results[0]).toEqual({ n: 0 });
  });

  it("honours Idempotency-Key and Bearer or X-API-Key alike", async () => {
    const { key } = await createKey();
    const source = (await note(key)).note_id;
    const fields = { note_id: source, voice_id: "en-male" };
    const first = await created(await createForm("quiz-video", key, fields, { "Idempotency-Key": "q-1" }));
    const again = await createForm("quiz-video", key, fields, { "Idempotency-Key": "q-1" });
    expect(await created(again.clone())).toBe(first);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const viaHeader = await call("/v2/create/quiz-video", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    expect(await created(viaHeader)).not.toBe(first);
  });
});

describe("GET /v1/create/tasks/{task_id}/result", () => {
  it("shows PENDING, PROCESSING with step/progress/ETA, then SUCCESS with signed links that serve Range", async () => {
    const { key } = await createKey();
    const source = await note(key);
    const taskId = await created(
      await createForm("shorts", key, { note_id: source.note_id, voice_id: "en-male" }),
    );
    expect(await poll(taskId, key)).toEqual({ status: 200, body: { status: "PENDING" } });
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    expect(lease.kind).toBe("shorts");
    expect(
      (await node.heartbeat(lease.lease_id, 40, { step: "rendering_video", estimated_time_sec: 12 })).status,
    ).toBe(200);
    expect((await poll(taskId, key)).body).toEqual({
      status: "PROCESSING",
      step: "rendering_video",
      progress: 40,
      estimated_time: 12,
    });
    // Progress never goes back, even if a report says less.
    await node.heartbeat(lease.lease_id, 10, { step: "uploading" });
    expect((await poll(taskId, key)).body).toMatchObject({ progress: 40, step: "uploading" });

    const video = bytes(50_000, 5);
    const upload = await node.uploadOutput(lease.lease_id, "The Mekong.mp4", video, "video/mp4");
    expect(upload.status).toBe(200);
    const stored = (await upload.json()) as { object_key: string; bytes: number; content_type: string };
    // a random segment after the task id: knowing the task id and the title does not give the URL
    expect(stored.object_key).toMatch(new RegExp(`^outputs/${taskId}/[0-9a-f-]{36}/the-mekong\\.mp4$`));
    expect((await call(`/media/outputs/${taskId}/the-mekong.mp4`)).status).toBe(404);
    const done = await node.complete(
      lease.lease_id,
      {
        note_id: source.note_id,
        title: "The Mekong",
        language: "en",
        duration: 29.5,
        outputs: [{ role: "video", ...stored }],
      },
      "shorts",
    );
    expect(done.status).toBe(204);
    const { body } = await poll(taskId, key);
    expect(body).toMatchObject({
      status: "SUCCESS",
      data: { note_id: source.note_id, title: "The Mekong", duration: 29.5, type: "shorts" },
    });
    const url = (body.data as { video_url: string }).video_url;
    expect(url).toMatch(/\/media\/outputs\/.+\?expires=\d+&sig=/);
    const part = await callMinted(url, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-type")).toBe("video/mp4");
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(video.slice(100, 200));
  });

  it("links a deck's PPTX and PDF as slide_url and slide_pdf_url (and in files), an audio-only short as audio_url", async () => {
    const { key } = await createKey();
    const source = (await note(key)).note_id;
    const node = new TestNode();
    const deck = await created(
      await createForm("slide", key, { note_id: source, template_id: "slide-midnight" }),
    );
    const lease = await leaseTask(node, deck);
    const files = [];
    for (const [name, role, type] of [
      ["deck.pptx", "pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"],
      ["deck.pdf", "pdf", "application/pdf"],
    ] as const) {
      const response = await node.uploadOutput(lease.lease_id, name, bytes(2000, 2), type);
      files.push({ role, ...((await response.json()) as object) });
    }
    await node.complete(
      lease.lease_id,
      { note_id: source, title: "Deck", language: "en", slide_count: 6, outputs: files },
      "slide",
    );
    const { body } = await poll(deck, key);
    expect(body).toMatchObject({ status: "SUCCESS", data: { slide_count: 6 } });
    const data = body.data as { slide_url: string; slide_pdf_url: string };
    expect(data.slide_url).toMatch(/deck\.pptx\?/);
    expect((await callMinted(data.slide_pdf_url)).headers.get("content-type")).toBe("application/pdf");
    // Every file is listed too, with its role, type, size and its own link.
    expect(body.data).toMatchObject({
      files: [
        { role: "pptx", bytes: 2000, url: data.slide_url },
        { role: "pdf", content_type: "application/pdf", bytes: 2000, url: data.slide_pdf_url },
      ],
    });

    const audio = await created(
      await createForm("shorts", key, { note_id: source, voice_id: "en-female", is_audio_only: "1" }),
    );
    const audioLease = await leaseTask(node, audio);
    const stored = await (
      await node.uploadOutput(audioLease.lease_id, "short.m4a", bytes(900, 1), "audio/mp4")
    ).json();
    await node.complete(
      audioLease.lease_id,
      {
        note_id: source,
        title: "T",
        language: "en",
        duration: 12,
        outputs: [{ role: "audio", ...(stored as object) }],
      },
      "shorts",
    );
    const audioBody = (await poll(audio, key)).body;
    expect(audioBody.data).toHaveProperty("audio_url");
    expect(audioBody.data).not.toHaveProperty("video_url");
  });

  it("refuses a completion naming a file that was not uploaded for the task", async () => {
    const { key } = await createKey();
    const source = (await note(key)).note_id;
    const taskId = await created(await createForm("shorts", key, { note_id: source, voice_id: "en-male" }));
    const node = new TestNode();
    const lease = await leaseTask(node, taskId);
    const forged = {
      role: "video",
      object_key: `outputs/${taskId}/nothing.mp4`,
      content_type: "video/mp4",
      bytes: 10,
    };
    const done = await node.complete(
      lease.lease_id,
      { note_id: source, title: "x", language: "en", outputs: [forged] },
      "shorts",
    );
    expect(done.status).toBe(409);
    const foreign = { ...forged, object_key: "uploads/00000000-0000-4000-8000-000000000000/a.mp3" };
    expect(
      (
        await node.complete(
          lease.lease_id,
          { note_id: source, title: "x", language: "en", outputs: [foreign] },
          "shorts",
        )
      ).status,
    ).toBe(409);
    expect((await poll(taskId, key)).body.status).toBe("PROCESSING");
  });

  it.each(
    CONTENT_ERROR_CODES,
  )("shows a render that failed with %s as FAILURE with that error_key", async (code) => {
    const { key } = await createKey();
    const source = (await note(key)).note_id;
    const taskId = await created(
      await createForm("slide", key, { note_id: source, template_id: "slide-forest" }),
    );
    const node = new TestNode();
    for (;;) {
      const lease = await leaseTask(node, taskId);
      const { requeued } = (await (await node.fail(lease.lease_id, code, `simulated ${code}`)).json()) as {
        requeued: boolean;
      };
      if (!requeued) break;
    }
    const { body } = await poll(taskId, key);
    expect(body).toMatchObject({ status: "FAILURE", error_key: code, message: `simulated ${code}` });
    expect(typeof body.error).toBe("string");
  });

  it("is 404 for another key's task and unknown ids; polls a transcription too", async () => {
    const { key } = await createKey();
    const other = await createKey("other");
    const source = (await note(key)).note_id;
    const taskId = await created(await createForm("shorts", key, { note_id: source, voice_id: "en-male" }));
    for (const [id, k] of [
      [taskId, other.key],
      ["nope", key],
    ] as const) {
      const response = await call(`/v1/create/tasks/${id}/result`, { headers: bearer(k) });
      expect(await errorKey(response, 404)).toBe("task_not_found");
    }
    const form = new FormData();
    form.append("file", new File([bytes(2048, 4)], "clip.wav", { type: "audio/wav" }));
    const upload = await call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
    const { task_id } = (await upload.json()) as { task_id: string };
    expect((await poll(task_id, key)).body).toEqual({ status: "PENDING" });
  });
});

describe("work classes", () => {
  it("caps renders apart from transcriptions, so one never holds the other's slots", async () => {
    const { key } = await createKey();
    const source = (await note(key)).note_id;
    for (let i = 0; i < 2; i++)
      await created(await createForm("slide", key, { note_id: source, template_id: "slide-clean" }));
    const node = new TestNode();
    // MAX_CONCURRENT_CONTENT_JOBS is 1: a second render waits while the first runs.
    expect(await node.lease(2, 0, [...RENDER_KINDS])).toHaveLength(1);
    expect(await node.lease(2, 0, [...RENDER_KINDS])).toHaveLength(0);
    const form = new FormData();
    form.append("file", new File([bytes(2048, 4)], "clip.wav", { type: "audio/wav" }));
    await call("/transcribe/upload", { method: "POST", headers: bearer(key), body: form });
    const leases = await node.lease(2, 0, ["transcribe", ...RENDER_KINDS]);
    expect(leases.length).toBeGreaterThan(0);
    expect(leases.every((lease) => lease.kind === "transcribe")).toBe(true);
  });
});
