import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createVoxedgeClient, unwrap, VoxedgeApiError, type VoxedgeClient } from "../../client/index.ts";
import { createKey } from "./helpers.ts";

/**
 * The typed client against the real app in workerd: each of the API's four error envelopes (and the
 * 422 form of the first) comes back as one VoxedgeApiError with the route's status, stable code and
 * human message; a success resolves the body.
 */

let voxedge: VoxedgeClient;

beforeAll(async () => {
  const { key } = await createKey("typed-client");
  voxedge = createVoxedgeClient({
    baseUrl: "http://voxedge.test/",
    apiKey: key,
    fetch: (request) => exports.default.fetch(request),
  });
});

/** The error a call rejects with (fails the test if it resolves). */
async function failureOf(call: Promise<unknown>): Promise<VoxedgeApiError> {
  const outcome = await call.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(VoxedgeApiError);
  return outcome as VoxedgeApiError;
}

describe("typed client errors", () => {
  it("reads {detail, code}", async () => {
    const error = await failureOf(
      voxedge.GET("/transcribe/{task_id}", { params: { path: { task_id: "no-such-task" } } }),
    );
    expect(error).toMatchObject({ status: 404, code: "not_found", message: "task not found" });
    expect(error.body).toEqual({ detail: "task not found", code: "not_found" });
  });

  it("reads the 422 HTTPValidationError, keeping its issues as details", async () => {
    const error = await failureOf(
      // the body misses the required file_url
      voxedge.POST("/transcribe", { body: { language: "en" } as never }),
    );
    expect(error).toMatchObject({ status: 422, code: "validation_error" });
    expect(error.message).toMatch(/^file_url: /);
    expect(error.details).toEqual([expect.objectContaining({ loc: ["body", "file_url"] })]);
  });

  it("reads OpenAI's {error: {message, type, param, code}}", async () => {
    const error = await failureOf(voxedge.GET("/v1/models/{model}", { params: { path: { model: "nope" } } }));
    expect(error).toMatchObject({ status: 404, code: "model_not_found" });
    expect(error.message).toContain("nope");
    expect(error.details).toMatchObject({ type: "invalid_request_error" });
  });

  it("reads the content service's {error, error_key, message}", async () => {
    const error = await failureOf(
      voxedge.GET("/v1/create/tasks/{task_id}/result", { params: { path: { task_id: "no-such-task" } } }),
    );
    expect(error.status).toBe(404);
    const body = error.body as { error: string; error_key: string; message: string };
    expect(error.code).toBe(body.error_key);
    expect(error.message).toBe(body.message);
    expect(error.details).toEqual({ error: body.error });
  });

  it("reads real-time translation's {error, code}", async () => {
    const error = await failureOf(
      voxedge.GET("/api/v1/session/{conversation_id}", {
        params: { path: { conversation_id: "no-such-room" } },
      }),
    );
    expect(error).toMatchObject({ status: 404, code: "not_found" });
    expect(error.message).toBe((error.body as { error: string }).error);
  });

  it("sends the key, and a missing one is the API's 401", async () => {
    const keyless = createVoxedgeClient({
      baseUrl: "http://voxedge.test",
      fetch: (request) => exports.default.fetch(request),
    });
    const error = await failureOf(keyless.GET("/history"));
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
    const page = await unwrap(voxedge.GET("/history", { params: { query: { limit: 1 } } }));
    expect(page).toMatchObject({ jobs: [], total: 0, limit: 1 });
  });

  it("sends UTF-8 intact: a Vietnamese note as JSON, and a form field as x-www-form-urlencoded", async () => {
    const written = { title: "Sông Mê Kông", content: "Đồng bằng sông Cửu Long nuôi sống hàng triệu người." };
    const note = await unwrap(voxedge.POST("/v1/notes", { body: written }));
    const read = await unwrap(
      voxedge.GET("/v1/notes/{note_id}", { params: { path: { note_id: note.note_id } } }),
    );
    expect(read).toMatchObject(written);
    // the create route names a refused voice_id in its message: the field came through as sent
    const error = await failureOf(
      voxedge.POST("/v2/create/shorts", {
        body: { note_id: note.note_id, voice_id: "giọng-Việt đẹp & lạ=1" },
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    expect(error).toMatchObject({ status: 400, code: "unknown_voice" });
    expect(error.message).toContain('voice_id "giọng-Việt đẹp & lạ=1"');
  });

  it("keeps a body that is not JSON as text, with the status text as message", () => {
    const error = VoxedgeApiError.fromBody(502, "<html>bad gateway</html>", "Bad Gateway");
    expect(error).toMatchObject({ status: 502, code: null, message: "Bad Gateway" });
    expect(error.body).toBe("<html>bad gateway</html>");
  });

  it("rejects status 0 with code network when nothing answers", async () => {
    const unreachable = createVoxedgeClient({ baseUrl: "http://127.0.0.1:9" });
    const error = await failureOf(unreachable.GET("/health"));
    expect(error).toMatchObject({ status: 0, code: "network" });
  });
});
