/**
 * Which URLs the service may fetch (the SSRF guard). Pure: the Worker applies it to every hop of a
 * file_url check; the inference node applies it too and adds a check of the addresses DNS returns
 * (`isPublicAddress`), which a Worker cannot do.
 */

/** Ports a URL may name without an allowlist entry. */
const ALLOWED_PORTS = new Set([80, 443, 8080, 8443]);

/**
 * Names that never lead to a public host: special-use names (RFC 6761 `localhost`, `test`, `invalid`,
 * `example`; RFC 6762 `local`; RFC 7686 `onion`; RFC 9476 `alt`; `arpa`, home of RFC 8375 `home.arpa`
 * and the reverse zones), ICANN's private-use `internal`, and the suffixes networks use for their own
 * hosts and never delegated publicly (`localdomain`, `lan`, `intranet`, `private`, `home`, `corp`,
 * `mail`, Kubernetes' `svc`, Consul's `consul`). Such a name resolves, if at all, inside a network.
 */
const BLOCKED_SUFFIXES = [
  "localhost",
  "test",
  "invalid",
  "example",
  "local",
  "onion",
  "alt",
  "arpa",
  "internal",
  "localdomain",
  "lan",
  "intranet",
  "private",
  "home",
  "corp",
  "mail",
  "svc",
  "consul",
];
/** Cloud metadata services. */
const METADATA_HOSTS = new Set(["metadata.goog", "metadata.google.internal", "metadata.tencentyun.com"]);

/** IPv4 blocks that are not globally reachable (IANA special-purpose registry): [base, prefix length]. */
const NON_PUBLIC_V4: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT (and Alibaba's metadata service)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata at 169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments (Oracle's metadata at 192.0.0.192)
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast (deprecated)
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export interface UrlPolicyOptions {
  /** `host:port` entries (as `parseAllowlist` makes them) exempt from the address and port rules. */
  allowlist?: ReadonlySet<string>;
}

/**
 * Decides whether the service may fetch `input`. Refuses non-http(s) schemes, credentials, hosts that
 * are or name non-public addresses (every IPv4 spelling the URL parser accepts: decimal, octal, hex;
 * IPv6 including IPv4-mapped and NAT64 forms), internal names, and ports other than 80/443/8080/8443.
 *
 * @example checkUrl("http://169.254.169.254/latest/meta-data") // { ok: false, reason: "..." }
 */
export function checkUrl(input: string | URL, options: UrlPolicyOptions = {}): UrlVerdict {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      ok: false,
      reason: `scheme ${url.protocol.replace(/:$/, "")} is not allowed; use http or https`,
    };
  }
  if (url.username || url.password) return { ok: false, reason: "URLs with credentials are not allowed" };
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  if (options.allowlist?.has(`${url.hostname}:${port}`)) return { ok: true, url };
  const hostProblem = checkHost(url.hostname);
  if (hostProblem) return { ok: false, reason: hostProblem };
  if (!ALLOWED_PORTS.has(port)) return { ok: false, reason: `port ${port} is not allowed` };
  return { ok: true, url };
}

/** Why a (URL-parser-normalised) hostname is refused, or null when it may be fetched. */
function checkHost(hostname: string): string | null {
  if (hostname.startsWith("[")) {
    return isPublicAddress(hostname.slice(1, -1)) ? null : `address ${hostname} is not public`;
  }
  if (parseIPv4(hostname) !== null) {
    return isPublicAddress(hostname) ? null : `address ${hostname} is not public`;
  }
  const name = hostname.replace(/\.$/, "");
  // "localhost.." is no DNS name; some resolvers trim the dots and reach loopback, so it never passes.
  if (name.split(".").includes("")) return `host ${hostname} has an empty label`;
  if (METADATA_HOSTS.has(name)) return `host ${name} is a cloud metadata service`;
  if (BLOCKED_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return `host ${name} is an internal name`;
  }
  // A single-label name resolves through the resolver's search domains, i.e. inside a network.
  if (!name.includes(".")) return `host ${name} is not a public domain name`;
  return null;
}

/**
 * Whether an IP address (IPv4 dotted quad or IPv6, as DNS answers give them) is globally reachable.
 * IPv6 is allowed only inside global unicast (2000::/3) minus its special blocks; IPv4-mapped and
 * NAT64 addresses are judged by the IPv4 address they carry. Anything unparsable is not public.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return isPublicIPv4(v4);
  const v6 = parseIPv6(address);
  if (!v6) return false;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = v6;
  const embeddedV4 = ((g6 << 16) | g7) >>> 0;
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (upperZero && g5 === 0xffff) return isPublicIPv4(embeddedV4); // ::ffff:a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPublicIPv4(embeddedV4); // NAT64 64:ff9b::a.b.c.d
  }
  if ((g0 & 0xe000) !== 0x2000) return false; // outside global unicast: ::1, fc00::/7, fe80::/10, ff00::/8...
  if (g0 === 0x2001 && g1 < 0x200) return false; // 2001::/23 protocol assignments (Teredo, benchmarking)
  if (g0 === 0x2001 && g1 === 0xdb8) return false; // documentation
  if (g0 === 0x2002) return false; // 6to4: carries an arbitrary IPv4 address
  if (g0 === 0x3fff && (g1 & 0xf000) === 0) return false; // 3fff::/20 documentation
  return true;
}

function isPublicIPv4(address: number): boolean {
  return !NON_PUBLIC_V4.some(([base, bits]) => {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (address & mask) >>> 0 === (parseIPv4(base) ?? 0);
  });
}

/** A strict dotted quad as a 32-bit number (URL parsing already turned other spellings into this). */
function parseIPv4(text: string): number | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  let value = 0;
  for (const part of match.slice(1)) {
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** Eight 16-bit groups of an IPv6 address (with `::` and an optional dotted IPv4 tail), or null. */
function parseIPv6(text: string): number[] | null {
  let body = text.toLowerCase().replace(/%.*$/, ""); // a zone id does not change the address class
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail?.[1]) {
    const v4 = parseIPv4(tail[1]);
    if (v4 === null) return null;
    body = `${body.slice(0, -tail[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part ? part.split(":") : []);
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(Math.max(0, missing)).fill("0"), ...rest];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => Number.parseInt(group, 16));
}

/**
 * Parses an allowlist setting: comma-separated `host:port` entries, normalised the way URLs are
 * (so `LOCALHOST:8080` and `[::1]:9000` match what `checkUrl` sees). Invalid entries are dropped.
 *
 * @example parseAllowlist("127.0.0.1:9000, media.test:8081")
 */
export function parseAllowlist(text: string | undefined): ReadonlySet<string> {
  const entries = new Set<string>();
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim();
    if (!/:\d+$/.test(entry)) continue;
    try {
      const url = new URL(`http://${entry}`);
      entries.add(`${url.hostname}:${url.port || "80"}`);
    } catch {
      // not a host:port; ignored
    }
  }
  return entries;
}
