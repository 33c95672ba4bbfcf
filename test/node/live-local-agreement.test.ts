import { describe, expect, it } from "vitest";
import { agreedLength, LocalAgreement, units } from "../../inference-node/live/local-agreement.ts";

describe("LocalAgreement-2", () => {
  it("settles only the prefix two consecutive hypotheses agree on", () => {
    const la = new LocalAgreement();
    expect(la.update("the quick")).toBe("");
    expect(la.update("the quick brown")).toBe("the quick");
    expect(la.update("the quick brown fox jumps")).toBe("the quick brown");
    expect(la.update("the quick brown fox jumped over")).toBe("the quick brown fox");
  });

  it("never takes settled text back when a later decode changes its mind", () => {
    const la = new LocalAgreement();
    la.update("I scream for");
    expect(la.update("I scream for ice")).toBe("I scream for");
    // two decodes now agree on a different reading of settled words: the settled text stays
    expect(la.update("Ice cream for ice cream")).toBe("I scream for");
    expect(la.update("Ice cream for ice cream today")).toBe("I scream for");
  });

  it("compares words ignoring case and punctuation, and shows the newest spelling for new words", () => {
    const la = new LocalAgreement();
    la.update("hello world");
    expect(la.update("Hello, world. How")).toBe("Hello, world.");
  });

  it("shows nothing while consecutive hypotheses disagree from the first word", () => {
    const la = new LocalAgreement();
    for (const h of ["alpha", "beta gamma", "delta", "epsilon zeta"]) expect(la.update(h)).toBe("");
  });

  it("agrees character by character in scripts written without spaces", () => {
    expect(units("Hello, world 你好吗")).toEqual(["Hello,", "world", "你", "好", "吗"]);
    const la = new LocalAgreement();
    la.update("你好吗");
    expect(la.update("你好呀朋友")).toBe("你好");
  });

  it("starts clean after reset (the next utterance)", () => {
    const la = new LocalAgreement();
    la.update("one two");
    la.update("one two three");
    la.reset();
    expect(la.text).toBe("");
    expect(la.update("four five")).toBe("");
  });

  it("agreedLength is the common prefix length", () => {
    expect(agreedLength(["a", "b", "c"], ["A", "b", "d"])).toBe(2);
    expect(agreedLength([], ["a"])).toBe(0);
    expect(agreedLength(["?"], ["?"])).toBe(1);
    expect(agreedLength(["?"], ["!"])).toBe(0);
  });
});
