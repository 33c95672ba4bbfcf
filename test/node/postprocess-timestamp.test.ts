import { describe, expect, it } from "vitest";
import { formatTimestamp } from "../../protocol/timestamp.ts";

describe("formatTimestamp", () => {
  it("prints MM:SS.mmm under one hour", () => {
    expect(formatTimestamp(0)).toBe("00:00.000");
    expect(formatTimestamp(1.5)).toBe("00:01.500");
    expect(formatTimestamp(75.25)).toBe("01:15.250");
    expect(formatTimestamp(3599.123)).toBe("59:59.123");
  });

  it("prints HH:MM:SS.mmm at and past one hour", () => {
    expect(formatTimestamp(3600)).toBe("01:00:00.000");
    expect(formatTimestamp(3725.042)).toBe("01:02:05.042");
    expect(formatTimestamp(36_000 + 61.001)).toBe("10:01:01.001");
  });

  it("rounds to the nearest millisecond and carries into seconds, minutes and hours", () => {
    expect(formatTimestamp(59.9996)).toBe("01:00.000");
    expect(formatTimestamp(12.3454)).toBe("00:12.345");
    expect(formatTimestamp(12.3456)).toBe("00:12.346");
    expect(formatTimestamp(3599.9999)).toBe("01:00:00.000");
    // whisper's centisecond timestamps come through as floats (0.1 + 0.2 = 0.30000000000000004)
    expect(formatTimestamp(0.1 + 0.2)).toBe("00:00.300");
  });

  it("prints zero for negative and non-finite input", () => {
    expect(formatTimestamp(-0.5)).toBe("00:00.000");
    expect(formatTimestamp(Number.NaN)).toBe("00:00.000");
    expect(formatTimestamp(Number.POSITIVE_INFINITY)).toBe("00:00.000");
  });
});
