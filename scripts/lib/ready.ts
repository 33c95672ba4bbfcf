/** Waiting for a local server that was just spawned to answer. */

export interface WaitOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** Pause between tries. */
  intervalMs?: number;
  /** True once the process that should answer is gone: no point waiting any longer. */
  exited?: () => boolean;
}

/**
 * Resolves once GET `url` answers 2xx; throws when `exited()` turns true or `timeoutMs` passes.
 *
 * @example await waitForOk(`${base}/health`, { timeoutMs: 60_000, exited: () => child.exitCode !== null });
 */
export async function waitForOk(url: string, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.exited?.()) throw new Error(`the process behind ${url} exited during start-up`);
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${options.timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}
