import { AwsV4Signer } from "aws4fetch";
import type { R2S3Config } from "../../platform/config.ts";

/** A request to presign with SigV4 query parameters. */
export interface S3PresignRequest {
  method: "GET" | "PUT";
  url: string;
  expiresIn: number;
  /** Signed as a header, so the later request must send exactly this Content-Type. */
  contentType?: string;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/**
 * Presigns an S3 request (AWS SigV4, query-string form, unsigned payload). `datetime` (`YYYYMMDDTHHMMSSZ`)
 * is for tests; it defaults to now.
 *
 * @example await presignS3Url({ method: "GET", url, expiresIn: 3600 }, credentials)
 */
export async function presignS3Url(
  input: S3PresignRequest,
  credentials: S3Credentials,
  datetime?: string,
): Promise<string> {
  const url = new URL(input.url);
  url.searchParams.set("X-Amz-Expires", String(input.expiresIn));
  const signer = new AwsV4Signer({
    method: input.method,
    url: url.toString(),
    headers: input.contentType ? { "content-type": input.contentType } : {},
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    service: "s3",
    region: credentials.region,
    signQuery: true,
    // aws4fetch leaves Content-Type unsigned by default; signing it pins the upload's type.
    allHeaders: true,
    datetime,
  });
  return (await signer.sign()).url.toString();
}

/** The S3 API URL of an object in the deployment's R2 bucket. */
export function r2ObjectUrl(config: R2S3Config, objectKey: string): string {
  const path = objectKey.split("/").map(encodeURIComponent).join("/");
  return `https://${config.accountId}.r2.cloudflarestorage.com/${encodeURIComponent(config.bucket)}/${path}`;
}

/** Presigns a request for an object of the deployment's R2 bucket (R2's region is always `auto`). */
export function presignR2(
  config: R2S3Config,
  objectKey: string,
  request: Omit<S3PresignRequest, "url">,
): Promise<string> {
  return presignS3Url(
    { ...request, url: r2ObjectUrl(config, objectKey) },
    { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey, region: "auto" },
  );
}
