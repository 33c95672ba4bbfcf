// What the Worker tests' globalSetups (test/helpers/fixture-server.ts, loopback-name.ts) hand them through inject().
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** Origin of the local HTTP server that stands in for file_url hosts, e.g. http://127.0.0.1:40123. */
    fixtureOrigin: string;
    /** Origin naming a public-looking host that resolves to a loopback address, e.g. http://media-1f2e.voxedge-ssrf-check.com:8080. */
    loopbackNameOrigin: string;
    /** Origin (allowlisted) whose GET answers how many requests reached the loopback name's server. */
    loopbackHitsOrigin: string;
    /** Origin of the tarpit: a webhook target on its own port that never answers. */
    tarpitOrigin: string;
    /** Origin of the identity provider standing in for user JWTs' issuer (test/helpers/identity-provider.ts). */
    identityProviderOrigin: string;
  }
}
