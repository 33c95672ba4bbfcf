import { describe, expect, it } from "vitest";
import { checkUrl, isPublicAddress, parseAllowlist } from "../../protocol/url-policy.ts";

const refused = (url: string, allowlist?: ReadonlySet<string>) => {
  const verdict = checkUrl(url, { allowlist });
  return verdict.ok ? null : verdict.reason;
};

describe("checkUrl", () => {
  it("accepts public http(s) URLs on the usual ports", () => {
    for (const url of [
      "https://example.com/a.mp3",
      "http://cdn.example.org:8080/x",
      "https://media.example.net:8443/y?sig=1",
      "http://example.com:443/",
      "http://8.8.8.8/a",
      "http://[2606:4700::1111]/a",
      "http://[::ffff:8.8.8.8]/a",
    ]) {
      expect(refused(url), url).toBeNull();
    }
  });

  it("refuses other schemes, credentials and unparsable input", () => {
    expect(refused("ftp://example.com/a")).toMatch(/scheme ftp/);
    expect(refused("file:///etc/passwd")).toMatch(/scheme file/);
    expect(refused("javascript:alert(1)")).toMatch(/scheme javascript/);
    expect(refused("https://user:pass@example.com/")).toMatch(/credentials/);
    expect(refused("https://user@example.com/")).toMatch(/credentials/);
    expect(refused("not a url")).toMatch(/not a valid/);
    expect(refused("/relative/path")).toMatch(/not a valid/);
  });

  it("refuses loopback, private, link-local, CGNAT, multicast and reserved IPv4 in every spelling", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://127.1.2.3/",
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://172.31.255.255/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.0.1/",
      "http://100.100.100.200/",
      "http://0.0.0.0/",
      "http://0/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://240.0.0.1/",
      "http://198.18.0.1/",
      "http://192.0.0.192/",
      "http://2130706433/", // decimal 127.0.0.1
      "http://0x7f000001/", // hex
      "http://0x7f.1/", // mixed hex
      "http://017700000001/", // octal
      "http://0177.0.0.1/",
      "http://127.1/", // short form
      "http://127.0.0.1./", // trailing dot
      "http://3232235777/", // 192.168.1.1
    ]) {
      expect(refused(url), url).toMatch(/is not public/);
    }
    expect(refused("http://172.32.0.1/")).toBeNull();
    expect(refused("http://100.128.0.1/")).toBeNull();
  });

  it("refuses non-public IPv6, including IPv4-mapped and NAT64 forms of private IPv4", () => {
    for (const url of [
      "http://[::1]/",
      "http://[::]/",
      "http://[0:0:0:0:0:0:0:1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:10.0.0.1]/",
      "http://[::127.0.0.1]/", // IPv4-compatible (deprecated)
      "http://[64:ff9b::10.0.0.1]/",
      "http://[fc00::1]/",
      "http://[fd00:ec2::254]/", // AWS metadata over IPv6
      "http://[fe80::1]/",
      "http://[ff02::1]/",
      "http://[2001:db8::1]/",
      "http://[2001::1]/", // Teredo
      "http://[2002:7f00:1::]/", // 6to4
      "http://[3fff::1]/",
    ]) {
      expect(refused(url), url).toMatch(/is not public/);
    }
  });

  it("refuses internal names and metadata hosts", () => {
    for (const [url, reason] of [
      ["http://localhost/", /internal name/],
      ["http://LOCALHOST./", /internal name/],
      ["http://api.localhost/", /internal name/],
      ["http://db.internal/", /internal name/],
      ["http://printer.local/", /internal name/],
      ["http://router.home.arpa/", /internal name/],
      ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
      ["http://metadata.goog/", /metadata/],
      ["http://metadata/", /not a public domain name/],
      ["http://printer/", /not a public domain name/],
      ["http://wiki.intranet/", /internal name/],
    ] as const) {
      expect(refused(url), url).toMatch(reason);
    }
  });

  it("refuses every special-use and network-internal suffix, as the name itself and below it", () => {
    for (const suffix of [
      "localhost",
      "test",
      "invalid",
      "example",
      "local",
      "onion",
      "alt",
      "arpa",
      "home.arpa",
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
    ]) {
      for (const host of [`media.${suffix}`, `a.b.${suffix.toUpperCase()}.`, `${suffix}.`]) {
        expect(refused(`https://${host}/a.mp3`) ?? "allowed", host).toMatch(/internal name/);
      }
    }
    expect(refused("http://1.0.0.127.in-addr.arpa/")).toMatch(/internal name/);
    expect(refused("http://web.default.svc/")).toMatch(/internal name/);
  });

  it("still allows public names that merely contain a refused word", () => {
    for (const url of [
      "https://test.example.com/a.mp3",
      "https://local.example.org/a",
      "https://cdn.home.example.net/a",
      "https://example.com/a",
      "https://mytest.io/a",
      "https://svc.cloud/a",
    ]) {
      expect(refused(url), url).toBeNull();
    }
  });

  it("allows only ports 80, 443, 8080 and 8443", () => {
    expect(refused("http://example.com:22/")).toMatch(/port 22/);
    expect(refused("https://example.com:6379/")).toMatch(/port 6379/);
    expect(refused("http://example.com:80/")).toBeNull();
  });

  it("lets exactly the allowlisted host:port through, and nothing beside it", () => {
    const allowlist = parseAllowlist("127.0.0.1:9000, media.test:6000");
    expect(refused("http://127.0.0.1:9000/a", allowlist)).toBeNull();
    expect(refused("http://media.test:6000/a", allowlist)).toBeNull();
    expect(refused("http://127.0.0.1:9001/a", allowlist)).toMatch(/not public/);
    expect(refused("http://127.0.0.1/a", allowlist)).toMatch(/not public/);
    expect(refused("http://[::1]:9000/a", allowlist)).toMatch(/not public/);
    expect(refused("http://localhost:9000/a", allowlist)).toMatch(/internal name/);
    expect(refused("http://u:p@127.0.0.1:9000/a", allowlist)).toMatch(/credentials/);
    expect(refused("ftp://127.0.0.1:9000/a", allowlist)).toMatch(/scheme/);
  });
});

describe("parseAllowlist", () => {
  it("normalises entries the way URLs are and drops malformed ones", () => {
    expect([...parseAllowlist(" LOCALHOST:8080 ,[::1]:9000,example.com,:80,,a b:1, host:80")]).toEqual([
      "localhost:8080",
      "[::1]:9000",
      "host:80",
    ]);
    expect(parseAllowlist("").size).toBe(0);
    expect(parseAllowlist(undefined).size).toBe(0);
  });
});

describe("isPublicAddress (for addresses DNS returns)", () => {
  it("judges IPv4 and IPv6 text forms", () => {
    expect(isPublicAddress("93.184.216.34")).toBe(true);
    expect(isPublicAddress("10.0.0.8")).toBe(false);
    expect(isPublicAddress("::ffff:127.0.0.1")).toBe(false);
    expect(isPublicAddress("::ffff:93.184.216.34")).toBe(true);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
    expect(isPublicAddress("fe80::1%eth0")).toBe(false);
    expect(isPublicAddress("not-an-ip")).toBe(false);
    expect(isPublicAddress("1:2:3:4:5:6:7:8:9")).toBe(false);
    expect(isPublicAddress("256.1.1.1")).toBe(false);
  });
});
