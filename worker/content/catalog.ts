import type { z } from "@hono/zod-openapi";
import { BACKGROUNDS, PREVIEW_FILES, previewFile, TEMPLATES, VOICES } from "../../protocol/content.ts";
import { declaredLength, streamToR2 } from "../media/r2-upload.ts";
import type { BackgroundList, TemplateList, VoiceList } from "../schemas/content.ts";
import { ContentApiError } from "./errors.ts";

/**
 * The catalogs a create request picks from (protocol/content.ts), with links to their previews.
 * Previews are rendered by an inference node with the same code that renders real outputs, uploaded
 * once (PUT /internal/v1/previews/{file}) and served without an API key, so an <img> or <audio>
 * element can show them.
 */

/** Where previews live in R2. */
export const PREVIEW_PREFIX = "catalog/previews/";
/** The public path previews are served under. */
export const PREVIEW_PATH = "/v1/catalog/previews/";

const link = (base: string, file: string) => `${base}${PREVIEW_PATH}${file}`;

export function voiceCatalog(base: string): z.infer<typeof VoiceList> {
  return {
    voices: VOICES.map((voice) => ({
      voice_id: voice.voice_id,
      name: voice.name,
      language: voice.language,
      gender: voice.gender,
      engine: voice.engine,
      sample_url: link(base, previewFile.voice(voice.voice_id)),
    })),
  };
}

export function backgroundCatalog(base: string): z.infer<typeof BackgroundList> {
  return {
    backgrounds: BACKGROUNDS.map((bg) => ({
      bg_id: bg.bg_id,
      name: bg.name,
      kind: bg.kind,
      preview_url: link(base, previewFile.background(bg.bg_id)),
    })),
  };
}

export function templateCatalog(base: string): z.infer<typeof TemplateList> {
  return {
    templates: TEMPLATES.map((template) => ({
      template_id: template.template_id,
      kind: template.kind,
      name: template.name,
      preview_url: link(base, previewFile.template(template.template_id)),
    })),
  };
}

const PREVIEW_TYPES: Record<string, string> = { png: "image/png", mp3: "audio/mpeg" };

function previewMissing(): ContentApiError {
  return new ContentApiError(
    "not_found",
    "preview_not_found",
    "no such preview, or no node has rendered it yet",
  );
}

/** A preview from R2, cacheable for a day (its name changes with the catalog entry it shows). */
export async function servePreview(env: Env, file: string): Promise<Response> {
  if (!PREVIEW_FILES.has(file)) throw previewMissing();
  const object = await env.MEDIA.get(`${PREVIEW_PREFIX}${file}`);
  if (!object) throw previewMissing();
  return new Response(object.body, {
    headers: {
      "content-type": PREVIEW_TYPES[file.split(".").pop() ?? ""] ?? "application/octet-stream",
      "content-length": String(object.size),
      "cache-control": "public, max-age=86400",
      "x-content-type-options": "nosniff",
    },
  });
}

/**
 * Stores a preview a node rendered (PUT /internal/v1/previews/{file}); only catalog names, at most
 * 2 MB each.
 */
export async function storePreview(env: Env, file: string, request: Request): Promise<void> {
  if (!PREVIEW_FILES.has(file)) throw previewMissing();
  await streamToR2(env.MEDIA, `${PREVIEW_PREFIX}${file}`, request.body, {
    length: declaredLength(request.headers),
    maxBytes: MAX_PREVIEW_BYTES,
  });
}

/** The catalog's preview files already stored, so a node renders only what is missing. */
export async function storedPreviews(env: Env): Promise<string[]> {
  const listed = await env.MEDIA.list({ prefix: PREVIEW_PREFIX, limit: 1000 });
  return listed.objects
    .map((object) => object.key.slice(PREVIEW_PREFIX.length))
    .filter((f) => PREVIEW_FILES.has(f));
}

const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;
