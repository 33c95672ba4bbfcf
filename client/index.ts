/**
 * The typed Voxedge client: openapi-fetch over the types generated from the API's own /openapi.json
 * (`schema.d.ts`, `npm run client:generate`). Every call is checked against the route's parameters
 * and body and resolves the route's success body; every failure rejects one `VoxedgeApiError`.
 *
 * @example
 * const voxedge = createVoxedgeClient({ baseUrl: "https://api.example.com", apiKey: "vx_…" });
 * const task = await unwrap(voxedge.POST("/transcribe", { body: { file_url: "https://…/talk.mp3" } }));
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { VoxedgeApiError } from "./errors.ts";
import type { paths } from "./schema.d.ts";

export { VoxedgeApiError } from "./errors.ts";
export type { components, paths } from "./schema.d.ts";

export type VoxedgeClient = Client<paths>;

export interface VoxedgeClientOptions {
  /** The API's origin, e.g. `https://api.example.com` (no trailing path). */
  baseUrl: string;
  /**
   * The API key sent as `Authorization: Bearer …`; a function is asked on every request (a key that
   * changes, like a signed-in console's). None: only the routes that need no key work. A request that
   * sets its own `authorization` header keeps it.
   */
  apiKey?: string | (() => string | null | undefined);
  /** The fetch to use (a test's, a proxy's); the global one otherwise. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * Makes a client. Non-2xx answers reject a `VoxedgeApiError` (whichever envelope the route uses);
 * a request that gets no answer rejects one with status 0 and code `network`; an aborted one rejects
 * the abort's own error.
 */
export function createVoxedgeClient(options: VoxedgeClientOptions): VoxedgeClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
  });
  client.use(authorization(options.apiKey), failuresAsErrors);
  return client;
}

/**
 * The success body of a call, without openapi-fetch's `data | undefined` (errors already threw).
 * Routes answering 204 resolve undefined.
 *
 * @example const page = await unwrap(voxedge.GET("/history", { params: { query: { limit: 20 } } }));
 */
export async function unwrap<Result extends { data?: unknown }>(
  call: Promise<Result>,
): Promise<Exclude<Result["data"], undefined>> {
  const { data } = await call;
  return data as Exclude<Result["data"], undefined>;
}

function authorization(apiKey: VoxedgeClientOptions["apiKey"]): Middleware {
  return {
    onRequest({ request }) {
      const key = typeof apiKey === "function" ? apiKey() : apiKey;
      if (key && !request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${key}`);
      return request;
    },
  };
}

const failuresAsErrors: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await VoxedgeApiError.fromResponse(response);
    return undefined;
  },
  onError({ error, request }) {
    if (request.signal.aborted) return error instanceof Error ? error : new Error(String(error));
    return VoxedgeApiError.network(error);
  },
};
