// What the browser tests' globalSetup (global-stack.ts) hands them through inject().
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The running platform: its origin, a valid API key, the key it exposes as the local dev key, where
     * screenshots go, and a loopback file host (serving /talk.wav) that the SSRF allowlist lets through.
     */
    consoleStack: { url: string; key: string; devKey: string; screenshots: string; mediaOrigin: string };
  }
}
