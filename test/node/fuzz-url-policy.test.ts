/**
 * Property tests of the SSRF guard (protocol/url-policy.ts): whatever spelling a URL uses for a
 * non-public address or an internal name, `checkUrl` never lets it through; public addresses and names
 * stay fetchable (so the guard is not trivially refusing everything). The oracle for "non-public" is
 * Node's own address parser and `net.BlockList`, not the policy's code.
 */
import { BlockList, isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkUrl } from "../../protocol/url-policy.ts";
import { fuzzRuns } from "../helpers/fuzz.ts";

/** IANA special-purpose IPv4 blocks (not globally reachable), as the oracle knows them. */
const PRIVATE_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** IPv6 blocks that are never a public target (IPv4-mapped addresses are judged by the IPv4 rules). */
const PRIVATE_V6: [string, number][] = [
  ["::", 96], // unspecified, loopback, IPv4-compatible
  ["100::", 64], // discard
  ["2001::", 23], // protocol assignments (Teredo, benchmarking)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["3fff::", 20], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
];

const oracle = new BlockList();
for (const [base, bits] of PRIVATE_V4) oracle.addSubnet(base, bits, "ipv4");
for (const [base, bits] of PRIVATE_V6) oracle.addSubnet(base, bits, "ipv6");

const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

/** Whether an address literal (as a URL parser leaves it, brackets stripped) is not globally reachable. */
function oracleSaysPrivate(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return oracle.check(address, "ipv4");
  if (family !== 6) return false;
  if (oracle.check(address, "ipv6")) return true;
  const nat64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (nat64) {
    const embedded = (Number.parseInt(nat64[1] ?? "0", 16) << 16) | Number.parseInt(nat64[2] ?? "0", 16);
    return oracle.check(v4Text(embedded >>> 0), "ipv4");
  }
  // outside global unicast 2000::/3
  const first = Number.parseInt(address.split(":")[0] || "0", 16);
  return (first & 0xe000) !== 0x2000 && !address.toLowerCase().startsWith("64:ff9b::");
}

// ---- generators ----

/** A 32-bit address inside one of the non-public IPv4 blocks. */
const privateV4 = fc.tuple(fc.constantFrom(...PRIVATE_V4), fc.nat()).map(([[base, bits], host]) => {
  const start = base.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - bits);
  return start + (host % size);
});

const FULLWIDTH_DIGIT = 0xff10;
const fullwidth = (text: string) =>
  text.replace(/[0-9]/g, (d) => String.fromCodePoint(FULLWIDTH_DIGIT + Number(d))).replace(/\./g, "．");

/** One number in the radix spellings the WHATWG IPv4 parser accepts. */
const numberSpelling = (value: number) =>
  fc.constantFrom(
    String(value),
    `0x${value.toString(16)}`,
    `0X${value.toString(16).toUpperCase()}`,
    `0${value.toString(8)}`,
    `0x${"0".repeat(3)}${value.toString(16)}`,
  );

/** Every way a URL may spell an IPv4 address: 1 to 4 parts, each decimal, octal or hex, odd dots. */
const v4Spelling = (n: number) =>
  fc
    .tuple(
      fc.constantFrom(1, 2, 3, 4),
      fc.nat(),
      fc.constantFrom("", ".", "。"),
      fc.constantFrom("plain", "fullwidth", "ideographic"),
    )
    .chain(([parts, salt, trailing, script]) => {
      const octets = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
      const values =
        parts === 4
          ? octets
          : parts === 3
            ? [octets[0]!, octets[1]!, (n & 0xffff) >>> 0]
            : parts === 2
              ? [octets[0]!, n & 0xffffff]
              : [n >>> 0];
      return fc.tuple(...values.map(numberSpelling)).map((spelled) => {
        const dotted = `${spelled.join(".")}${trailing}`;
        if (script === "fullwidth" && salt % 2 === 0) return fullwidth(dotted);
        if (script === "ideographic") return dotted.replaceAll(".", "。");
        return dotted;
      });
    });

const hex4 = (n: number) => (n & 0xffff).toString(16);

/** IPv6 spellings that carry a non-public IPv4 address: mapped, NAT64, compatible, expanded, padded. */
const v6CarryingV4 = (n: number) =>
  fc.constantFrom(
    `[::ffff:${v4Text(n)}]`,
    `[::FFFF:${hex4(n >>> 16)}:${hex4(n)}]`,
    `[0:0:0:0:0:ffff:${v4Text(n)}]`,
    `[0000:0000:0000:0000:0000:ffff:${hex4(n >>> 16).padStart(4, "0")}:${hex4(n).padStart(4, "0")}]`,
    `[64:ff9b::${v4Text(n)}]`,
    `[64:ff9b::${hex4(n >>> 16)}:${hex4(n)}]`,
    `[::${v4Text(n)}]`,
  );

/** A random address inside a non-public IPv6 block, compressed or not, in either case. */
const privateV6 = fc
  .tuple(
    fc.constantFrom(...PRIVATE_V6),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
  )
  .chain(([[base, bits], random]) => {
    const baseGroups = expandV6(base);
    const groups = baseGroups.map((group, i) => {
      const fixed = Math.max(0, Math.min(16, bits - i * 16));
      const mask = fixed === 0 ? 0 : (0xffff << (16 - fixed)) & 0xffff;
      return (group & mask) | ((random[i] ?? 0) & ~mask & 0xffff);
    });
    return fc.constantFrom(
      `[${groups.map((g) => g.toString(16)).join(":")}]`,
      `[${groups.map((g) => g.toString(16).toUpperCase().padStart(4, "0")).join(":")}]`,
      `[${compress(groups)}]`,
    );
  });

function expandV6(text: string): number[] {
  const [head = "", tail = ""] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  return [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t].map((g) => Number.parseInt(g, 16));
}

function compress(groups: number[]): string {
  const text = groups.map((g) => g.toString(16)).join(":");
  return text.replace(/(^|:)0(:0)+(:|$)/, "::");
}

const INTERNAL_SUFFIXES = [
  "localhost",
  "test",
  "invalid",
  "example",
  "local",
  "onion",
  "alt",
  "home.arpa",
  "in-addr.arpa",
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
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);

/** Internal names: *.localhost and friends, single labels, metadata hosts; any case, odd trailing dots. */
const internalName = fc
  .oneof(
    fc
      .tuple(fc.array(label, { maxLength: 3 }), fc.constantFrom(...INTERNAL_SUFFIXES))
      .map(([labels, suffix]) => [...labels, suffix].join(".")),
    label,
    fc.constantFrom("metadata.google.internal", "metadata.goog", "metadata.tencentyun.com"),
  )
  .chain((name) =>
    fc
      .tuple(fc.boolean(), fc.constantFrom("", ".", ".."))
      .map(([upper, dots]) => `${upper ? name.toUpperCase() : name}${dots}`),
  );

const privateHost = fc.oneof(
  privateV4.chain(v4Spelling),
  privateV4.chain(v6CarryingV4),
  privateV6,
  internalName,
);

const port = fc.oneof(
  fc.constant(""),
  fc.constantFrom(":80", ":443", ":8080", ":8443"),
  fc.integer({ min: 0, max: 65535 }).map((p) => `:${p}`),
);
const userinfo = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  fc.constantFrom("user@", "user:pass@", "example.com@", ":@", "a%40b@"),
);
const path = fc.stringMatching(/^(\/[a-zA-Z0-9._~-]{0,12}){0,3}$/);
const scheme = fc.constantFrom("http", "https", "HTTP", "hTtPs");

const urlOf = (host: fc.Arbitrary<string>) =>
  fc
    .tuple(scheme, userinfo, host, port, path)
    .map(([s, user, h, p, rest]) => `${s}://${user}${h}${p}${rest || "/"}`);

describe("SSRF guard (fuzzed spellings)", () => {
  it("never allows a loopback, private, link-local, reserved or internal target, however it is spelled", () => {
    fc.assert(
      fc.property(urlOf(privateHost), (url) => {
        const verdict = checkUrl(url);
        expect(verdict.ok, `${url} was allowed`).toBe(false);
      }),
      fuzzRuns(3000),
    );
  });

  it("allows public IPv4 and IPv6 literals and public names on the usual ports", () => {
    const publicV4 = fc.integer({ min: 0, max: 0xffffffff }).filter((n) => !oracle.check(v4Text(n), "ipv4"));
    const publicV6 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 })
      .map(
        (rest) =>
          `[2${rest.length > 0 ? "6" : "0"}0${(rest[0] ?? 0) % 10}:${rest
            .slice(1)
            .map((g) => g.toString(16))
            .join(":")}:1]`,
      )
      .filter((host) => !oracleSaysPrivate(host.slice(1, -1)));
    const publicName = fc
      .tuple(
        fc.array(label, { minLength: 1, maxLength: 3 }),
        fc.constantFrom("com", "org", "net", "io", "vn"),
      )
      .map(([labels, tld]) => [...labels, tld].join("."));
    const host = fc.oneof(publicV4.map(v4Text), publicV6, publicName);
    fc.assert(
      fc.property(
        fc.tuple(
          fc.constantFrom("http", "https"),
          host,
          fc.constantFrom("", ":80", ":443", ":8080", ":8443"),
          path,
        ),
        ([s, h, p, rest]) => {
          const url = `${s}://${h}${p}${rest || "/"}`;
          const verdict = checkUrl(url);
          expect(verdict.ok ? null : verdict.reason, url).toBeNull();
        },
      ),
      fuzzRuns(1000),
    );
  });

  it("agrees with the oracle on arbitrary host strings: whatever it allows is a public address or a dotted public name", () => {
    const hostChars = fc.constantFrom(..."0123456789abcdefx.:[]%-_ABCDEFX。．１");
    const rawHost = fc.array(hostChars, { minLength: 1, maxLength: 24 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.tuple(scheme, rawHost, port), ([s, h, p]) => {
        const url = `${s}://${h}${p}/`;
        let hostname: string;
        try {
          hostname = new URL(url).hostname;
        } catch {
          expect(checkUrl(url).ok).toBe(false);
          return;
        }
        if (!checkUrl(url).ok) return;
        const literal = hostname.replace(/^\[|\]$/g, "");
        expect(oracleSaysPrivate(literal), `${url} (${hostname}) is private but was allowed`).toBe(false);
        if (isIP(literal) === 0) {
          const labels = hostname.replace(/\.$/, "").split(".");
          expect(labels.length, `${url}: single-label name allowed`).toBeGreaterThan(1);
          expect(labels.includes(""), `${url}: empty DNS label allowed`).toBe(false);
        }
      }),
      fuzzRuns(3000),
    );
  });
});
