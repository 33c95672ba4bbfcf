/**
 * A public-looking DNS name that resolves to a loopback address of its own, the way an attacker's name
 * would (a record they control, or one re-pointed after a check): a line in /etc/hosts (the tests run
 * as root), removed again by `remove`. Every resolver that reads the hosts file (glibc's, so workerd's
 * and Node's dns.lookup) sees it.
 */
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { appendFile, readFile, writeFile } from "node:fs/promises";

const HOSTS_FILE = "/etc/hosts";

export interface HostsEntry {
  name: string;
  /** A loopback address other than 127.0.0.1, so no other test server shares it. */
  address: string;
  remove: () => Promise<void>;
}

export async function addLoopbackName(): Promise<HostsEntry> {
  const [b1 = 0, b2 = 0, b3 = 0, ...tag] = randomBytes(7);
  const name = `media-${Buffer.from(tag).toString("hex")}.voxedge-ssrf-check.com`;
  const address = `127.${(b1 % 254) + 1}.${b2}.${b3}`;
  const line = `${address} ${name}\n`;
  // One append (O_APPEND): two projects' setups adding their names at once both land.
  const hosts = await readFile(HOSTS_FILE, "utf8");
  await appendFile(HOSTS_FILE, `${hosts.endsWith("\n") ? "" : "\n"}${line}`);
  const remove = async () => {
    await writeFile(HOSTS_FILE, (await readFile(HOSTS_FILE, "utf8")).replace(line, ""));
  };
  // A name that did not resolve would make every refusal pass for the wrong reason.
  const resolved = await lookup(name);
  if (resolved.address !== address) {
    await remove();
    throw new Error(`${name} resolves to ${resolved.address}, not ${address}: is ${HOSTS_FILE} read?`);
  }
  return { name, address, remove };
}
