/**
 * Property tests of the URLs the Worker signs itself: the upload PUT (worker/ingest/upload-signature.ts)
 * and the media GET (worker/media/media-signature.ts). Random mutations of a valid URL (object key,
 * expiry, content type, owner, signature, duplicated or reordered parameters, encodings) never verify
 * unless they still name exactly the signed grant; through the real routes they are refused (403, or
 * 404 for a key of the wrong shape; GET /media as a deployment with MEDIA_REQUIRE_SIGNATURE answers)
 * and store nothing. Runs in workerd, whose WebCrypto has the
 * constant-time compare the verifiers use.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { newObjectKey, outputKey } from "../../worker/ingest/object-keys.ts";
import { readSignedPut, signedPutUrl, verifyUploadGrant } from "../../worker/ingest/upload-signature.ts";
import { mediaUrlProblem, signedMediaUrl } from "../../worker/media/media-signature.ts";
import type { PresignResponse } from "../../worker/schemas/uploads.ts";
import { fuzzRuns } from "../helpers/fuzz.ts";
import { createKey, UPLOAD_SIGNING_SECRET } from "./helpers.ts";
import { callMinted, getRequiringSignature, postJson } from "./ingest-helpers.ts";

const SECRET = UPLOAD_SIGNING_SECRET;
const seed = (n: number) => fuzzRuns(1).seed + 40 + n;
const BASE = "http://voxedge.test";

type Mutation = (url: URL, pick: number) => void;

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function flipChar(text: string, pick: number, alphabet = B64URL): string {
  if (text.length === 0) return alphabet[pick % alphabet.length] ?? "A";
  const at = pick % text.length;
  const current = text[at] ?? "";
  const replacement =
    alphabet[(alphabet.indexOf(current) + 1 + (pick % (alphabet.length - 1))) % alphabet.length] ?? "A";
  return `${text.slice(0, at)}${replacement === current ? "Z" : replacement}${text.slice(at + 1)}`;
}

const setParam =
  (name: string, value: (old: string, pick: number) => string): Mutation =>
  (url, pick) =>
    url.searchParams.set(name, value(url.searchParams.get(name) ?? "", pick));

/** Ways to alter a signed URL; several may apply at once. */
const MUTATIONS: Record<string, Mutation> = {
  keyChar: (url, pick) => {
    const [prefix = "", ...rest] =
      url.pathname.split("/uploads/put/").length > 1
        ? url.pathname.split("/uploads/put/")
        : url.pathname.split("/media/");
    const key = rest.join("");
    const route = url.pathname.startsWith("/media/") ? "/media/" : "/uploads/put/";
    url.pathname = `${prefix}${route}${flipChar(key, pick, "abcdef0123456789-")}`;
  },
  keySuffix: (url, pick) => {
    url.pathname = `${url.pathname}${["x", "/", "%2F..", ".mp3", "%00"][pick % 5]}`;
  },
  keyCase: (url) => {
    url.pathname = url.pathname.replace(/[a-f]/, (c) => c.toUpperCase());
  },
  expiresLater: setParam("expires", (old, pick) => String(Number(old) + 1 + (pick % 100_000))),
  expiresEarlier: setParam("expires", (old, pick) => String(Number(old) - 1 - (pick % 100_000))),
  expiresOdd: setParam(
    "expires",
    (old, pick) => [`${old}.0`, `+${old}`, ` ${old}`, `${old}e0`, "", "-1"][pick % 6] ?? "",
  ),
  sigChar: setParam("sig", (old, pick) => flipChar(old, pick)),
  sigTruncate: setParam("sig", (old, pick) => old.slice(0, pick % Math.max(1, old.length))),
  sigExtend: setParam("sig", (old, pick) => `${old}${B64URL[pick % 64]}`),
  sigPadding: setParam("sig", (old) => `${old}=`),
  sigStandardAlphabet: setParam("sig", (old) => old.replaceAll("-", "+").replaceAll("_", "/")),
  sigDropped: (url) => url.searchParams.delete("sig"),
  sigDoubled: (url, pick) => {
    const sig = url.searchParams.get("sig") ?? "";
    url.searchParams.delete("sig");
    url.searchParams.append("sig", flipChar(sig, pick));
    url.searchParams.append("sig", sig);
  },
  ctChanged: setParam(
    "ct",
    (old, pick) => [`${old}; charset=utf-8`, old.toUpperCase(), `${old} `, "audio/wav", ""][pick % 5] ?? "",
  ),
  ownerChanged: setParam(
    "owner",
    (old, pick) => [`${old}x`, old.toUpperCase(), "key_other", ""][pick % 4] ?? "",
  ),
};

const mutationNames = Object.keys(MUTATIONS);
const mutations = fc.array(fc.tuple(fc.constantFrom(...mutationNames), fc.nat()), {
  minLength: 1,
  maxLength: 3,
});

function mutate(original: string, applied: [string, number][]): URL {
  const url = new URL(original);
  for (const [name, pick] of applied) MUTATIONS[name]?.(url, pick);
  return url;
}

/** Whether the two base64url signatures carry the same bytes. */
function sameBytes(a: string, b: string): boolean {
  const decode = (text: string) => {
    try {
      return atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    } catch {
      return null;
    }
  };
  const left = decode(a);
  return left !== null && left === decode(b);
}

describe("signed upload URLs (fuzzed)", { timeout: 60_000 }, () => {
  let presigned: PresignResponse;
  let ownerKeyId: string;
  let ownerKey: string;

  beforeAll(async () => {
    const made = await createKey("signed-put-fuzz");
    ownerKeyId = made.id;
    ownerKey = made.key;
    presigned = (await (
      await postJson("/uploads/presign", ownerKey, { filename: "a.mp3", content_type: "audio/mpeg" })
    ).json()) as PresignResponse;
  });

  it("a mutated upload URL verifies only while it still names exactly the signed grant", async () => {
    const objectKey = newObjectKey("talk.mp3");
    const grant = { objectKey, contentType: "audio/mpeg", ownerKeyId: "key_owner", expires: 2_000_000_000 };
    const valid = await signedPutUrl(BASE, SECRET, grant);
    const original = readSignedPut(objectKey, new URL(valid).searchParams);
    expect(original && (await verifyUploadGrant(SECRET, original.grant, original.signature))).toBe(true);
    await fc.assert(
      fc.asyncProperty(mutations, async (applied) => {
        const url = mutate(valid, applied);
        const key = decodeURIComponent(url.pathname.slice("/uploads/put/".length));
        const read = readSignedPut(key, url.searchParams);
        if (!read) return; // malformed: refused before any signature check
        const verified = await verifyUploadGrant(SECRET, read.grant, read.signature);
        if (verified) {
          expect(read.grant, `${url} verified for another grant`).toEqual(grant);
          expect(sameBytes(read.signature, original?.signature ?? "")).toBe(true);
        }
      }),
      { ...fuzzRuns(1500), seed: seed(0) },
    );
  });

  it("the PUT route refuses every mutated URL (403, or 404 for a key of the wrong shape) and stores nothing", async () => {
    await fc.assert(
      fc.asyncProperty(mutations, async (applied) => {
        const url = mutate(presigned.upload_url, applied);
        const response = await callMinted(url.toString(), {
          method: "PUT",
          headers: { "content-type": "audio/mpeg", "content-length": "4" },
          body: "abcd",
        });
        const body = await response.text();
        const key = decodeURIComponent(url.pathname.slice("/uploads/put/".length));
        const read = readSignedPut(key, url.searchParams);
        const sameGrant =
          read !== null &&
          read.grant.objectKey === presigned.object_key &&
          read.grant.ownerKeyId === ownerKeyId &&
          read.grant.contentType === "audio/mpeg" &&
          sameBytes(read.signature, new URL(presigned.upload_url).searchParams.get("sig") ?? "");
        if (sameGrant && response.status === 200) {
          // the same grant spelled differently: accepted once, then the object exists; start over
          await env.MEDIA.delete(presigned.object_key);
          await env.DB.prepare("UPDATE uploads SET put_at = NULL WHERE object_key = ?")
            .bind(presigned.object_key)
            .run();
          return;
        }
        expect([403, 404], `${url} -> ${response.status} ${body}`).toContain(response.status);
        expect(await env.MEDIA.head(presigned.object_key), `${url} stored the object`).toBeNull();
      }),
      { ...fuzzRuns(120), seed: seed(1) },
    );
  });
});

describe("signed media URLs (fuzzed)", { timeout: 60_000 }, () => {
  const uploadKey = newObjectKey("clip.mp3");
  const outputsKey = outputKey(crypto.randomUUID(), "short.mp4");

  beforeAll(async () => {
    await env.MEDIA.put(uploadKey, new Uint8Array(10), { httpMetadata: { contentType: "audio/mpeg" } });
    await env.MEDIA.put(outputsKey, new Uint8Array(10), { httpMetadata: { contentType: "video/mp4" } });
  });

  it("a mutated media URL passes the check only while it names exactly the signed key and expiry", async () => {
    const expires = 2_000_000_000;
    const valid = await signedMediaUrl(BASE, SECRET, uploadKey, expires);
    const now = Date.now() / 1000;
    expect(await mediaUrlProblem(SECRET, uploadKey, new URL(valid).searchParams, now)).toBeNull();
    await fc.assert(
      fc.asyncProperty(mutations, async (applied) => {
        const url = mutate(valid, applied);
        const key = decodeURIComponent(url.pathname.slice("/media/".length));
        const problem = await mediaUrlProblem(SECRET, key, url.searchParams, now);
        if (problem === null) {
          expect(key, `${url} passed for another key`).toBe(uploadKey);
          expect(Number(url.searchParams.get("expires")), `${url} passed for another expiry`).toBe(expires);
        }
      }),
      { ...fuzzRuns(1500), seed: seed(2) },
    );
  });

  it("GET /media with MEDIA_REQUIRE_SIGNATURE refuses every mutated link (403 or 404) and serves the exact one", async () => {
    for (const key of [uploadKey, outputsKey]) {
      const valid = await signedMediaUrl(BASE, SECRET, key, Math.floor(Date.now() / 1000) + 600);
      expect((await getRequiringSignature(valid)).status).toBe(200);
      await fc.assert(
        fc.asyncProperty(mutations, async (applied) => {
          const url = mutate(valid, applied);
          const response = await getRequiringSignature(url.toString());
          const text = await response.text();
          const path = decodeURIComponent(url.pathname.slice("/media/".length));
          const problem = await mediaUrlProblem(SECRET, path, url.searchParams, Date.now() / 1000);
          if (path === key && problem === null) return; // the same link spelled differently
          expect([403, 404], `${url} -> ${response.status} ${text.slice(0, 200)}`).toContain(response.status);
        }),
        { ...fuzzRuns(60), seed: seed(3) },
      );
    }
  });
});
