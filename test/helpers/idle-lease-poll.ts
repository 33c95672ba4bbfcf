/**
 * What a WorkerClient stand-in's `lease` does when it has nothing to hand out: waits the long poll's
 * `waitMs`, or less when the loop's signal aborts (a drain), and answers no lease.
 */
export async function idleLeasePoll(waitMs: number, signal?: AbortSignal): Promise<[]> {
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    // removed when the poll ends by itself: a loop polls many times on the one signal
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, waitMs);
    signal?.addEventListener("abort", stop, { once: true });
  });
  return [];
}
