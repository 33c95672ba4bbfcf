/** A client's value in an error message: whole when short, its first 64 characters and length when not. */
import { describe, expect, it } from "vitest";
import { QUOTED_MAX_CHARS, quoted } from "../../protocol/quoted.ts";

describe("quoted", () => {
  it("quotes a short value whole", () => {
    expect(quoted("robot")).toBe('"robot"');
    expect(quoted("")).toBe('""');
    expect(quoted("x".repeat(QUOTED_MAX_CHARS))).toBe(`"${"x".repeat(64)}"`);
  });

  it("quotes the first 64 characters of a longer one, with its length", () => {
    expect(quoted("x".repeat(65))).toBe(`"${"x".repeat(64)}…" (65 characters)`);
    // Characters, not UTF-16 units: an emoji is not cut in half.
    const emoji = "😀".repeat(70);
    expect(quoted(emoji)).toBe(`"${"😀".repeat(64)}…" (70 characters)`);
  });
});
