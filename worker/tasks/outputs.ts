import type { ContentOutputFile } from "../../protocol/content.ts";
import type { CompleteRequest } from "../../protocol/node.ts";
import { ApiError } from "../errors.ts";
import { outputKey, outputPrefix } from "../ingest/object-keys.ts";
import { servedContentType, uploadContentType } from "../media/content-types.ts";
import { declaredLength, streamToR2 } from "../media/r2-upload.ts";
import { workerTaskKind } from "./kinds/index.ts";

/**
 * A render's files: the node streams each one through the Worker into R2 under the task's own prefix,
 * at a random key the answer names (PUT /internal/v1/leases/{id}/outputs/{name}), before it completes,
 * and the completion may name only files stored there.
 */

/** The largest output file accepted (a 3-minute 1080x1920 short is far below it). */
export const MAX_OUTPUT_BYTES = 2 * 1024 ** 3;

/** Stores one output file of a leased task; the answer is what the completion should list. */
export async function storeOutput(
  env: Env,
  taskId: string,
  name: string,
  request: Request,
): Promise<{ object_key: string; bytes: number; content_type: string }> {
  const objectKey = outputKey(taskId, name);
  const contentType = uploadContentType(request.headers.get("content-type"));
  if (servedContentType(contentType) !== contentType) {
    throw new ApiError(
      "bad_request",
      `outputs are audio, video or a renderer's document type (PDF, PPTX, Markdown, JSON, SRT, VTT), not ${contentType}`,
    );
  }
  const { size } = await streamToR2(env.MEDIA, objectKey, request.body, {
    length: declaredLength(request.headers),
    maxBytes: MAX_OUTPUT_BYTES,
    httpMetadata: { contentType },
  });
  return { object_key: objectKey, bytes: size, content_type: contentType };
}

/** Refuses a completion that names a file not stored for this task (or stored with another size). */
export async function checkOutputs(env: Env, taskId: string, completion: CompleteRequest): Promise<void> {
  for (const output of workerTaskKind(completion.kind).outputFiles(completion)) {
    await checkOutput(env, taskId, output);
  }
}

async function checkOutput(env: Env, taskId: string, output: ContentOutputFile): Promise<void> {
  if (!output.object_key.startsWith(outputPrefix(taskId))) {
    throw new ApiError("conflict", `output ${output.object_key} does not belong to task ${taskId}`);
  }
  const head = await env.MEDIA.head(output.object_key);
  if (!head || head.size !== output.bytes) {
    throw new ApiError("conflict", `output ${output.object_key} was not uploaded (or is incomplete)`);
  }
}
