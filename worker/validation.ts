import type { z } from "@hono/zod-openapi";
import { type ApiError, type ValidationIssue, validationError } from "./errors.ts";

/** Where a request value came from, named as FastAPI-style `loc` roots. */
const LOC_ROOT: Record<string, string> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "cookie",
};

/** Turns zod issues into the spec's HTTPValidationError items (`loc`, `msg`, `type`). */
export function toValidationIssues(error: z.ZodError, target: string, input: unknown): ValidationIssue[] {
  const root = LOC_ROOT[target] ?? target;
  return error.issues.flatMap((issue): ValidationIssue[] => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        loc: [root, ...issue.path.map(pathPart), key],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden",
      }));
    }
    const path = issue.path.map(pathPart);
    const missing = issue.code === "invalid_type" && valueAt(input, path) === undefined;
    return [
      {
        loc: [root, ...path],
        msg: missing ? "Field required" : issue.message,
        type: missing ? "missing" : issue.code,
      },
    ];
  });
}

function pathPart(part: PropertyKey): string | number {
  return typeof part === "number" ? part : String(part);
}

function valueAt(input: unknown, path: (string | number)[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** The 422 for a JSON body that does not parse. */
export function malformedJsonError(): ApiError {
  return validationError([{ loc: ["body"], msg: "Malformed JSON in request body", type: "json_invalid" }]);
}
