import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { MOUNTS } from "../../worker/app.ts";
import { defaultEnvelope } from "../../worker/error-envelope.ts";
import { ErrorBody, HTTPValidationError } from "../../worker/errors.ts";
import { envelopeOf } from "../../worker/router.ts";
import { ContentErrorBody } from "../../worker/schemas/content-common.ts";
import { OpenAIErrorBody } from "../../worker/schemas/openai.ts";
import { TranslationErrorBody } from "../../worker/schemas/translation.ts";
import { call } from "./helpers.ts";

/**
 * The error bodies /openapi.json declares are the ones each route's router sends: the envelope it
 * was made with (`Error` / `HTTPValidationError` by default, the content service's, OpenAI's,
 * real-time translation's). Checked both on the
 * document and by calling every secured operation without a key.
 */

interface Operation {
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

const SCHEMAS: Record<string, z.ZodType> = {
  Error: ErrorBody,
  HTTPValidationError,
  OpenAIError: OpenAIErrorBody,
  ContentError: ContentErrorBody,
  TranslationError: TranslationErrorBody,
};

/**
 * The error schemas an operation may declare: the envelope of the router that serves it (the one its
 * errors are rendered in); the app's own routes (docs) use the default.
 */
function declaredEnvelope(path: string, method: string): readonly string[] {
  for (const [prefix, router] of MOUNTS) {
    for (const route of router.routes) {
      const full = `${prefix === "/" ? "" : prefix}${route.path === "/" ? "" : route.path}` || "/";
      if (full.replace(/:(\w+)/g, "{$1}") === path && route.method.toLowerCase() === method) {
        return envelopeOf(router)?.schemas ?? [];
      }
    }
  }
  return defaultEnvelope.schemas;
}

const refName = (ref: string | undefined) => ref?.split("/").pop() ?? "(inline)";

async function documentedOperations() {
  const doc = (await (await call("/openapi.json")).json()) as Document;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
}

describe("declared error bodies", () => {
  it("declares its router's envelope for every error status", async () => {
    const operations = await documentedOperations();
    expect(operations.length).toBeGreaterThan(10);
    for (const { path, method, operation } of operations) {
      const allowed = declaredEnvelope(path, method);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400 || !response.content) continue;
        for (const media of Object.values(response.content)) {
          expect(allowed, `${method.toUpperCase()} ${path} ${status}`).toContain(refName(media.schema?.$ref));
        }
      }
    }
  });

  it("sends the declared 401 body from every secured operation called without a key", async () => {
    const secured = (await documentedOperations()).filter(({ operation }) => operation.security?.length);
    expect(secured.length).toBeGreaterThan(5);
    for (const { path, method, operation } of secured) {
      const url = path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      const response = await call(url, { method: method.toUpperCase() });
      const where = `${method.toUpperCase()} ${path}`;
      expect(response.status, where).toBe(401);
      const declared = operation.responses["401"]?.content?.["application/json"]?.schema?.$ref;
      const schema = SCHEMAS[refName(declared)];
      expect(schema, `${where} declares its 401 body`).toBeDefined();
      expect(schema!.safeParse(await response.json()).success, where).toBe(true);
    }
  });
});
