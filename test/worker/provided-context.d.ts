// What the Worker tests' globalSetup (test/helpers/fixture-server.ts) hands them through inject().
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** Origin of the local HTTP server that stands in for file_url hosts, e.g. http://127.0.0.1:40123. */
    fixtureOrigin: string;
    /** Origin of the tarpit: a webhook target on its own port that never answers. */
    tarpitOrigin: string;
  }
}
