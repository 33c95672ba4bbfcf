import { describe, expect, it } from "vitest";
import { OrderedStarts } from "../../native/ordered-starts.ts";
import type { Threading } from "../../native/thread-policy.ts";

const at = (threads: number): Threading => ({ threads, pollLevel: 0 });

describe("OrderedStarts", () => {
  it("starts at once when the decision is at hand and nothing waits", async () => {
    const starts = new OrderedStarts();
    const started: number[] = [];
    const result = starts.run(
      () => at(2),
      async (t) => {
        started.push(t.threads);
        return "done";
      },
    );
    expect(started).toEqual([2]); // synchronously, as before any decision could wait
    expect(starts.waiting).toBe(0);
    await expect(result).resolves.toBe("done");
  });

  it("keeps call order when an earlier call waits for its decision", async () => {
    const starts = new OrderedStarts();
    const started: string[] = [];
    let decideFirst!: (t: Threading) => void;
    const first = starts.run(
      () => new Promise<Threading>((resolve) => (decideFirst = resolve)),
      async () => {
        started.push("first");
        return 1;
      },
    );
    const second = starts.run(
      () => at(2),
      async () => {
        started.push("second");
        return 2;
      },
    );
    expect(starts.waiting).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([]);
    const drained = starts.drained();
    decideFirst(at(1));
    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
    await drained;
    expect(started).toEqual(["first", "second"]);
    expect(starts.waiting).toBe(0);
  });

  it("settles `drained` when a decode starts, not when it ends, and passes a failed decode on", async () => {
    const starts = new OrderedStarts();
    let endDecode!: () => void;
    const decode = starts.run(
      () => Promise.resolve(at(1)),
      () => new Promise<never>((_, reject) => (endDecode = () => reject(new Error("decode failed")))),
    );
    await starts.drained(); // the decode has started and still runs
    expect(starts.waiting).toBe(0);
    endDecode();
    await expect(decode).rejects.toThrow("decode failed");
  });
});
