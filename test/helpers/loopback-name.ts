/// <reference path="../worker/provided-context.d.ts" />
/**
 * vitest globalSetup of the Worker tests: a public-looking name that resolves to a loopback address
 * (hosts-entry.ts), a server there counting every request it gets, and a second server on 127.0.0.1
 * (allowlisted, like the fixture server) telling the tests the count. The name passes the URL policy,
 * so only the Worker's outbound network rule (vitest.config.mts) can keep requests from reaching it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { addLoopbackName } from "./hosts-entry.ts";

/** A port the URL policy allows without an allowlist entry. */
const TARGET_PORT = 8080;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const entry = await addLoopbackName();
  let hits = 0;
  const target = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": "4" }).end("ID3x");
  });
  const counter = createServer((_req, res) => void res.writeHead(200).end(String(hits)));
  await listen(target, TARGET_PORT, entry.address);
  const counterPort = await listen(counter, 0, "127.0.0.1");
  project.provide("loopbackNameOrigin", `http://${entry.name}:${TARGET_PORT}`);
  project.provide("loopbackHitsOrigin", `http://127.0.0.1:${counterPort}`);
  return async () => {
    await entry.remove();
    await Promise.all([close(target), close(counter)]);
  };
}
