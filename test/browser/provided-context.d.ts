// What the browser tests' globalSetup (global-stack.ts) hands them through inject().
export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** The running platform: its origin, a valid API key, the key it exposes as the local dev key. */
    consoleStack: { url: string; key: string; devKey: string; screenshots: string };
  }
}
