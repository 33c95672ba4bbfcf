import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from "jose";
import type { JwtSettings } from "../../platform/config.ts";

/**
 * User JWTs (content-generation spec, Authentication: "the create endpoints also accept a user JWT"):
 * verified with `jose` against the deployment's issuer and audience, signed either by a key of the
 * issuer's JWKS (RS256, ES256; fetched, cached and refetched when an unknown `kid` appears, so a key
 * rotation needs no deploy) or with a shared secret (HS256, for simple setups). `alg: none`, an
 * algorithm outside the configured family (an HS256 token on a JWKS setup, the classic confusion of a
 * public key used as an HMAC secret) and every failed check are refused, each with its own reason.
 */

/** Allowed clock difference between the issuer and the Worker for `exp`, `nbf` and `iat`. */
export const JWT_CLOCK_SKEW_SEC = 30;
const ASYMMETRIC = ["RS256", "ES256"];
const SYMMETRIC = ["HS256"];
/** Longest accepted token: a JWT is a header line, not a body. */
const MAX_JWT_LENGTH = 8192;

/** Why a token was refused: the `error_key` of the 401, never which key would have worked. */
export type JwtRefusal =
  | "token_malformed"
  | "token_algorithm_not_allowed"
  | "token_signature_invalid"
  | "token_signing_key_unknown"
  | "token_expired"
  | "token_not_yet_valid"
  | "token_issuer_invalid"
  | "token_audience_invalid"
  | "token_subject_missing"
  | "token_keys_unavailable";

export type JwtOutcome = { ok: true; subject: string } | { ok: false; refusal: JwtRefusal; message: string };

/** A compact JWS: three base64url parts. API keys (`vx_…`) never have this shape. */
export function looksLikeJwt(credential: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(credential);
}

/** One remote key set per JWKS URL and isolate: jose keeps its keys and refetches on an unknown kid. */
const keySets = new Map<string, JWTVerifyGetKey>();

function remoteKeys(url: string, refreshMs: number): JWTVerifyGetKey {
  let keys = keySets.get(url);
  if (!keys) {
    // An unknown kid refetches the set at most once per refreshMs (inside that it is refused, so forged
    // kids cannot make the Worker hammer the issuer); a fetched set is trusted for 10 minutes.
    keys = createRemoteJWKSet(new URL(url), {
      cooldownDuration: refreshMs,
      cacheMaxAge: 600_000,
      timeoutDuration: 5_000,
    });
    keySets.set(url, keys);
  }
  return keys;
}

/** Verifies a user JWT under `settings`; the subject is the user. */
export async function verifyUserJwt(token: string, settings: JwtSettings): Promise<JwtOutcome> {
  if (token.length > MAX_JWT_LENGTH)
    return refuse("token_malformed", "the token is longer than 8192 characters");
  const options: JWTVerifyOptions = {
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: JWT_CLOCK_SKEW_SEC,
  };
  let alg: string;
  try {
    alg = String(decodeProtectedHeader(token).alg);
  } catch {
    return refuse("token_malformed", "the token is not a well-formed JWT");
  }
  try {
    const { payload } = await verifyWith(token, alg, settings, options);
    return subjectOf(payload);
  } catch (error) {
    return refusalOf(error);
  }
}

function verifyWith(token: string, alg: string, settings: JwtSettings, options: JWTVerifyOptions) {
  // The secret verifies HS256 tokens only, the key set RS256/ES256 only: the token's own header never
  // makes a key of one family verify a token of the other.
  const symmetric = SYMMETRIC.includes(alg);
  if (settings.secret && (symmetric || !settings.jwksUrl)) {
    return jwtVerify(token, new TextEncoder().encode(settings.secret), { ...options, algorithms: SYMMETRIC });
  }
  if (!settings.jwksUrl) throw new Error("user JWTs are not configured");
  return jwtVerify(token, remoteKeys(settings.jwksUrl, settings.jwksRefreshMs), {
    ...options,
    algorithms: ASYMMETRIC,
  });
}

function subjectOf(payload: JWTPayload): JwtOutcome {
  const subject = payload.sub;
  if (typeof subject !== "string" || subject === "" || subject.length > 128) {
    return refuse("token_subject_missing", "the token has no subject (sub) of 1 to 128 characters");
  }
  return { ok: true, subject };
}

function refusalOf(error: unknown): JwtOutcome {
  if (error instanceof errors.JWTExpired) return refuse("token_expired", "the token has expired (exp)");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss")
      return refuse("token_issuer_invalid", "the token's issuer (iss) is not accepted");
    if (error.claim === "aud")
      return refuse("token_audience_invalid", "the token's audience (aud) is not accepted");
    if (error.claim === "nbf" || error.claim === "iat") {
      return refuse("token_not_yet_valid", "the token is not valid yet (nbf/iat)");
    }
    return refuse("token_malformed", `the token's ${error.claim} claim is invalid`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refuse("token_algorithm_not_allowed", "the token's signing algorithm is not accepted here");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return refuse("token_signature_invalid", "the token's signature does not verify");
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return refuse("token_signing_key_unknown", "no key of the issuer's key set signed this token");
  }
  // A key set that cannot be fetched fails with the fetch's own error, not a JOSEError.
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError)
  ) {
    return refuse("token_keys_unavailable", "the issuer's key set could not be read; try again");
  }
  return refuse("token_malformed", "the token is not a well-formed JWT");
}

function refuse(refusal: JwtRefusal, message: string): JwtOutcome {
  return { ok: false, refusal, message };
}
