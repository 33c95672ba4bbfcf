/**
 * The SSRF guard where the URL policy cannot see the attack: a public-looking name that resolves to a
 * loopback address (test/helpers/loopback-name.ts puts it in /etc/hosts and counts what reaches its
 * server). The name passes checkUrl; the Worker's outbound network, which admits public addresses and
 * the allowlisted ones only, must keep every fetch from reaching it: the file_url probe and the remote
 * tier's download.
 */
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { checkUrl, parseAllowlist } from "../../protocol/url-policy.ts";
import { outboundFetch } from "../../worker/outbound-fetch.ts";
import { readTaskMedia } from "../../worker/remote/remote-media.ts";
import { createKey } from "./helpers.ts";
import { errorOf, postJson } from "./ingest-helpers.ts";

const target = `${inject("loopbackNameOrigin")}/a.mp3`;

/** Requests that reached the loopback name's server so far. */
async function hits(): Promise<number> {
  return Number(await (await fetch(inject("loopbackHitsOrigin"))).text());
}

describe("a name that resolves to a loopback address", () => {
  it("passes the URL policy (only the outbound network can stop it)", () => {
    expect(checkUrl(target).ok).toBe(true);
  });

  it("is refused by the file_url probe, and nothing reaches its server", async () => {
    const { key } = await createKey("ssrf-resolution");
    const before = await hits();
    const body = await errorOf(await postJson("/transcribe", key, { file_url: target }), 400);
    expect(body.detail).toMatch(/file_url is not usable: could not reach /);
    expect(await hits()).toBe(before);
  });

  it("is refused by the remote tier's file_url download, and nothing reaches its server", async () => {
    const before = await hits();
    const read = readTaskMedia(
      env.MEDIA,
      { type: "url", url: target },
      parseAllowlist(env.URL_ALLOWLIST),
      outboundFetch(env),
    );
    await expect(read).rejects.toMatchObject({ failure: { code: "media_unreachable" } });
    expect(await hits()).toBe(before);
  });
});
