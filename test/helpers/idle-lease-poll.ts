/**
 * What a WorkerClient stand-in's `lease` does when it has nothing to hand out: waits the long poll's
 * `waitMs`, or less when the loop's signal aborts (a drain), and answers no lease.
 */
export async function idleLeasePoll(waitMs: number, signal?: AbortSignal): Promise<[]> {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  return [];
}
