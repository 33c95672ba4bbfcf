import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

/**
 * The Content-Security-Policy of every response the Worker makes (assets served straight from
 * web/dist never reach it). API bodies are data, never a document: nothing may load from or frame
 * them. The console's pages load only this origin's scripts and styles; images (a mind map's picture),
 * media and frames may also be presigned R2 links (https). A response that brings its own policy keeps it: GET /media
 * (`frame-ancestors 'self'`, so the console may frame a PDF; its types never run script) and /docs
 * (`docsPolicy`: Swagger UI's bundle plus the page's one inline script by hash, set by its route).
 */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

export const CONSOLE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' blob: https:",
  "frame-src 'self' https:",
  "connect-src 'self' https:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The reference page's policy: its inline scripts by hash, no other inline script. */
export async function docsPolicy(html: string): Promise<string> {
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => m[1] ?? "",
  );
  const hashes = await Promise.all(inline.filter(Boolean).map(sha256Source));
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(" ")}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

async function sha256Source(script: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}

/** Adds the policy that fits each response (see above). */
export function contentSecurityPolicy(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status === 101 || c.res.headers.has("Content-Security-Policy")) return;
    const isHtml = (c.res.headers.get("Content-Type") ?? "").startsWith("text/html");
    c.res.headers.set("Content-Security-Policy", isHtml ? CONSOLE_POLICY : API_POLICY);
  };
}
