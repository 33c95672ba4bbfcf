import { describe, expect, it } from "vitest";
import { isUploadKey, newObjectKey, slugify } from "../../worker/ingest/object-keys.ts";
import { presignR2, presignS3Url } from "../../worker/ingest/s3-presign.ts";
import {
  readSignedPut,
  signedPutUrl,
  signUploadGrant,
  type UploadGrant,
  verifyUploadGrant,
} from "../../worker/ingest/upload-signature.ts";

const SECRET = "unit-test-secret";
const grant: UploadGrant = {
  objectKey: "uploads/6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a/talk.mp3",
  contentType: "audio/mpeg",
  ownerKeyId: "key_owner",
  expires: 1_900_000_000,
};

describe("upload URL signatures", () => {
  it("verifies a signature made for exactly the same grant", async () => {
    const signature = await signUploadGrant(SECRET, grant);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    expect(await verifyUploadGrant(SECRET, grant, signature)).toBe(true);
  });

  it("refuses any change to what was signed, another secret, and malformed signatures", async () => {
    const signature = await signUploadGrant(SECRET, grant);
    for (const changed of [
      { ...grant, objectKey: `${grant.objectKey}x` },
      { ...grant, contentType: "audio/wav" },
      { ...grant, ownerKeyId: "key_other" },
      { ...grant, expires: grant.expires + 1 },
    ]) {
      expect(await verifyUploadGrant(SECRET, changed, signature)).toBe(false);
    }
    expect(await verifyUploadGrant("another-secret", grant, signature)).toBe(false);
    for (const bad of [
      "",
      "abc",
      `${signature}A`,
      signature.slice(0, -1),
      "!!!!",
      `${signature.slice(0, -2)}==`,
    ]) {
      expect(await verifyUploadGrant(SECRET, grant, bad), bad).toBe(false);
    }
  });

  it("round-trips a grant through the upload URL", async () => {
    const url = new URL(await signedPutUrl("https://api.example", SECRET, grant));
    expect(url.pathname).toBe(`/uploads/put/${grant.objectKey}`);
    const read = readSignedPut(grant.objectKey, url.searchParams);
    expect(read?.grant).toEqual(grant);
    expect(await verifyUploadGrant(SECRET, read!.grant, read!.signature)).toBe(true);
  });

  it("reads nothing from a URL that lacks a parameter or has a malformed expiry", async () => {
    const url = new URL(await signedPutUrl("https://api.example", SECRET, grant));
    for (const name of ["expires", "ct", "owner", "sig"]) {
      const query = new URLSearchParams(url.search);
      query.delete(name);
      expect(readSignedPut(grant.objectKey, query), name).toBeNull();
    }
    const query = new URLSearchParams(url.search);
    query.set("expires", "1e12");
    expect(readSignedPut(grant.objectKey, query)).toBeNull();
  });
});

describe("S3 presigning", () => {
  it("matches AWS's published SigV4 query-string example", async () => {
    // https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
    const url = await presignS3Url(
      { method: "GET", url: "https://examplebucket.s3.amazonaws.com/test.txt", expiresIn: 86400 },
      {
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1",
      },
      "20130524T000000Z",
    );
    const query = new URL(url).searchParams;
    expect(query.get("X-Amz-Credential")).toBe("AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request");
    expect(query.get("X-Amz-SignedHeaders")).toBe("host");
    expect(query.get("X-Amz-Signature")).toBe(
      "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    );
  });

  it("presigns a PUT to the R2 bucket that pins the Content-Type", async () => {
    const config = { accountId: "acc123", bucket: "voxedge-media", accessKeyId: "AK", secretAccessKey: "SK" };
    const url = new URL(
      await presignR2(config, grant.objectKey, { method: "PUT", expiresIn: 3600, contentType: "audio/mpeg" }),
    );
    expect(url.origin).toBe("https://acc123.r2.cloudflarestorage.com");
    expect(url.pathname).toBe(`/voxedge-media/${grant.objectKey}`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-type;host");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AK\/\d{8}\/auto\/s3\/aws4_request$/);
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    const other = new URL(
      await presignR2(config, grant.objectKey, { method: "PUT", expiresIn: 3600, contentType: "audio/wav" }),
    );
    expect(other.searchParams.get("X-Amz-Signature")).not.toBe(url.searchParams.get("X-Amz-Signature"));
  });
});

describe("object keys", () => {
  it("makes unguessable keys that keep only a slug of the filename", () => {
    const key = newObjectKey("../../etc/Bài giảng Đầu tiên (final).MP3");
    expect(key).toMatch(/^uploads\/[0-9a-f-]{36}\/bai-giang-dau-tien-final\.mp3$/);
    expect(isUploadKey(key)).toBe(true);
    expect(newObjectKey("a.mp3")).not.toBe(newObjectKey("a.mp3"));
  });

  it("slugs awkward names to something safe", () => {
    expect(slugify("")).toBe("file");
    expect(slugify("...")).toBe("file");
    expect(slugify(".bashrc")).toBe("bashrc");
    expect(slugify("C:\\Users\\me\\rec.wav")).toBe("rec.wav");
    expect(slugify("%2e%2e%2fx.mp3")).toBe("2e-2e-2fx.mp3");
    expect(slugify("录音.m4a")).toBe("file.m4a");
    expect(slugify(`${"a".repeat(300)}.flac`)).toHaveLength(80);
  });

  it("recognises only the exact upload key shape", () => {
    const uuid = "6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a";
    expect(isUploadKey(`uploads/${uuid}/talk.mp3`)).toBe(true);
    for (const key of [
      `uploads/${uuid}`,
      `uploads/${uuid}/`,
      `uploads/${uuid}/a/b.mp3`,
      `uploads/${uuid}/..`,
      `uploads/${uuid}/a..b`,
      `uploads/${uuid}/%2e%2e`,
      `uploads/${uuid.toUpperCase()}/talk.mp3`,
      `uploads/not-a-uuid/talk.mp3`,
      `outputs/${uuid}/talk.mp3`,
      `/uploads/${uuid}/talk.mp3`,
      `uploads%2F${uuid}%2Ftalk.mp3`,
    ]) {
      expect(isUploadKey(key), key).toBe(false);
    }
  });
});
