/**
 * A file host on loopback for jobs "from a URL": GET and HEAD of the files in one folder (its top
 * level only), 404 for anything else.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, extname, join } from "node:path";

const TYPES: Record<string, string> = { ".wav": "audio/wav" };

/** Serves `dir` on a free port of 127.0.0.1; `origin` is http://127.0.0.1:PORT. */
export async function serveFolder(dir: string): Promise<{ server: Server; origin: string }> {
  const server = createServer(async (req, res) => {
    const name = basename(decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/"));
    try {
      const body = await readFile(join(dir, name));
      const type = TYPES[extname(name)] ?? "application/octet-stream";
      res.writeHead(200, { "content-type": type, "content-length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
