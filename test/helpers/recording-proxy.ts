/**
 * A real HTTP server in front of another one (here: Apertium APy) that forwards every request and
 * records it, so an end-to-end test can see exactly what the platform asked of that service.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  /** The body's form fields (APy's translate takes a form), empty for other bodies. */
  form: Record<string, string>;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const type = req.headers["content-type"] ?? "";
    const form = type.includes("x-www-form-urlencoded")
      ? Object.fromEntries(new URLSearchParams(body.toString("utf8")))
      : {};
    requests.push({ method: req.method ?? "", path: req.url ?? "", form });
    const answer = await fetch(`${target}${req.url ?? "/"}`, {
      method: req.method ?? "GET",
      headers: type ? { "content-type": type } : {},
      body: req.method === "GET" || req.method === "HEAD" ? null : body,
    });
    res.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
    });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
