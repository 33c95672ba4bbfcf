/**
 * The SSRF guard through the real POST /transcribe: every spelling of a loopback, private, link-local
 * (cloud metadata), CGNAT or internal target, in the URL or behind a redirect, is a 400 naming the
 * refusal, and no task is made. (The property tests in test/node/fuzz-url-policy.test.ts cover the
 * policy itself with generated spellings.)
 */
import { describe, expect, it } from "vitest";
import { stored } from "./fuzz-helpers.ts";
import { createKey } from "./helpers.ts";
import { errorOf, fixtureUrl, postJson } from "./ingest-helpers.ts";

const REFUSED = [
  "http://127.0.0.1/a.mp3",
  "http://2130706433/a.mp3", // decimal
  "http://0x7f000001/a.mp3", // hex
  "http://017700000001/a.mp3", // octal
  "http://0x7f.1/a.mp3", // mixed, two parts
  "http://127.1/a.mp3",
  "http://０x7f.0.0.1/a.mp3", // full-width digits (IDNA maps them)
  "http://127。0。0。1/a.mp3", // ideographic full stops
  "http://169.254.169.254/latest/meta-data/",
  "http://[::ffff:169.254.169.254]/latest/meta-data/", // IPv4-mapped
  "http://[::ffff:a9fe:a9fe]/", // mapped, hex groups
  "http://[64:ff9b::10.0.0.1]/a.mp3", // NAT64
  "http://[::10.0.0.1]/a.mp3", // IPv4-compatible
  "http://[::1]/a.mp3",
  "http://[fd00::1]/a.mp3",
  "http://[fe80::1]/a.mp3",
  "http://100.64.0.1/a.mp3", // CGNAT
  "http://192.168.1.1:8080/a.mp3",
  "http://10.0.0.1:443/a.mp3",
  "http://localhost/a.mp3",
  "http://LOCALHOST./a.mp3",
  "http://localhost../a.mp3", // an empty label: passed before the guard refused such names
  "http://foo.localhost../a.mp3",
  "http://metadata.google.internal/computeMetadata/v1/",
  "http://printer.lan/a.mp3",
  "http://media.test/a.mp3", // special-use names (RFC 6761, 6762) and network-internal suffixes
  "http://files.example/a.mp3",
  "http://nas.home/a.mp3",
  "http://share.corp/a.mp3",
  "http://api.default.svc/a.mp3",
  "http://vault.service.consul/a.mp3",
  "http://intranet/a.mp3",
  "http://user:pass@example.com/a.mp3",
  "http://example.com@127.0.0.1/a.mp3",
  "https://example.com:22/a.mp3",
  "ftp://example.com/a.mp3",
  "file:///etc/passwd",
  "gopher://127.0.0.1:70/",
];

describe("POST /transcribe refuses every non-public target", () => {
  it("answers 400 naming the refusal for each spelling, and makes no task", async () => {
    const { key } = await createKey("ssrf");
    const before = await stored();
    for (const url of REFUSED) {
      const body = await errorOf(await postJson("/transcribe", key, { file_url: url }), 400);
      expect(body.detail, url).toMatch(/file_url is not usable: file_url is refused: /);
    }
    expect(await stored()).toEqual(before);
  });

  it("follows no redirect into the cloud metadata service", async () => {
    const { key } = await createKey("ssrf-redirect");
    const body = await errorOf(
      await postJson("/transcribe", key, { file_url: fixtureUrl("/redirect-metadata") }),
      400,
    );
    expect(body.detail).toMatch(
      /a redirect of file_url is refused: address 169\.254\.169\.254 is not public/,
    );
  });
});
