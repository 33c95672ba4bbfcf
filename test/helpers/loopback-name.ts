/// <reference path="../worker/provided-context.d.ts" />
/**
 * vitest globalSetup of the Worker tests: a public-looking DNS name that resolves to a loopback
 * address, the way an attacker's name would (a DNS record they control, or one re-pointed after a
 * check). The name goes into /etc/hosts (the tests run as root; the line is removed at teardown), a
 * server on that loopback address counts every request it gets, and a second server on 127.0.0.1
 * (allowlisted, like the fixture server) tells the tests the count. The name passes the URL policy,
 * so only the Worker's outbound network rule (vitest.config.mts) can keep requests from reaching it.
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

const HOSTS_FILE = "/etc/hosts";
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
  const tag = randomBytes(4).toString("hex");
  const name = `media-${tag}.voxedge-ssrf-check.com`;
  // A loopback address of its own (all of 127/8 is loopback), so no other test server shares it.
  const [b1 = 0, b2 = 0, b3 = 0] = randomBytes(3);
  const address = `127.${(b1 % 254) + 1}.${b2}.${b3}`;
  let hits = 0;
  const target = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": "4" }).end("ID3x");
  });
  const counter = createServer((_req, res) => void res.writeHead(200).end(String(hits)));
  await listen(target, TARGET_PORT, address);
  const counterPort = await listen(counter, 0, "127.0.0.1");
  const line = `${address} ${name} # voxedge test ${tag}`;
  const hosts = await readFile(HOSTS_FILE, "utf8");
  await writeFile(HOSTS_FILE, `${hosts.replace(/\n?$/, "\n")}${line}\n`);
  project.provide("loopbackNameOrigin", `http://${name}:${TARGET_PORT}`);
  project.provide("loopbackHitsOrigin", `http://127.0.0.1:${counterPort}`);
  return async () => {
    const now = await readFile(HOSTS_FILE, "utf8");
    await writeFile(HOSTS_FILE, now.replace(`${line}\n`, ""));
    await Promise.all([close(target), close(counter)]);
  };
}
