/// <reference path="../worker/provided-context.d.ts" />
/**
 * vitest globalSetup of the Worker tests: a real HTTP server on 127.0.0.1 standing in for an identity
 * provider that issues user JWTs. It publishes its public keys as a JWKS (`GET /jwks.json`, the
 * Worker's AUTH_JWT_JWKS_URL in tests) and signs tokens for the tests (`POST /sign` with
 * `{claims, key?}`: RS256 with its current key, or `key: "unpublished"` for a key it never publishes);
 * `POST /rotate` makes a new key current and publishes it beside the old one, as a provider rotates.
 * `GET /fetches` says how often the JWKS was read.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import type { TestProject } from "vitest/node";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => resolve(text ? JSON.parse(text) : {}));
    req.on("error", reject);
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const published: SigningKey[] = [await newKey("key-1")];
  const unpublished = await newKey("key-unpublished");
  let fetches = 0;
  const server = createServer((req, res) => {
    const answer = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    const route = `${req.method} ${req.url}`;
    if (route === "GET /jwks.json") {
      fetches++;
      return answer(200, { keys: published.map((k) => k.jwk) });
    }
    if (route === "GET /fetches") return answer(200, { fetches });
    if (route === "POST /rotate") {
      void newKey(`key-${published.length + 1}`).then((key) => {
        published.push(key);
        answer(200, { kid: key.kid });
      });
      return;
    }
    if (route === "POST /sign") {
      void body(req).then(async (input) => {
        const { claims, key } = input as { claims: Record<string, unknown>; key?: string };
        const signer = key === "unpublished" ? unpublished : (published.at(-1) as SigningKey);
        const token = await new SignJWT(claims)
          .setProtectedHeader({ alg: "RS256", kid: signer.kid })
          .sign(signer.privateKey);
        answer(200, { token });
      });
      return;
    }
    answer(404, { error: "unknown route" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("identityProviderOrigin", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}
