import { describe, expect, it } from "vitest";
import { brokerErrorText } from "../../worker/tasks/broker-error-text.ts";

/** What /health may show of a broker failure: its own words, no credentials, addresses or stack. */
describe("brokerErrorText", () => {
  it.each([
    ["Queue send failed: 503", "Queue send failed: 503"],
    ["connect failed to https://user:pw@broker.example:8443/v1/queues?token=abc", "connect failed to <url>"],
    ["publish to wss://10.0.3.7/ws refused", "publish to <url> refused"],
    ["connect ECONNREFUSED 10.0.3.7:443", "connect ECONNREFUSED <address>"],
    [
      "unauthorized (Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig)",
      "unauthorized (Authorization: Bearer <redacted>)",
    ],
    [
      "bad request key=s3cr3t&secret=x password: hunter2",
      "bad request key=<redacted>&secret=<redacted> password: <redacted>",
    ],
    [
      "Error: Queue send failed\n    at QueueProducer.send (worker.js:10:5)\n    at async submit (index.js:2:1)",
      "Error: Queue send failed",
    ],
    ["", "job broker error (no message)"],
  ])("%j -> %j", (raw, shown) => {
    expect(brokerErrorText(new Error(raw))).toBe(shown);
  });

  it("reads a thrown non-Error and caps the length", () => {
    expect(brokerErrorText("plain text failure")).toBe("plain text failure");
    expect(brokerErrorText(new Error("x".repeat(1000))).length).toBeLessThanOrEqual(200);
  });
});
