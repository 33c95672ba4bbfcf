import { describe, expect, it } from "vitest";
import { MediaError } from "../../inference-node/media/media-error.ts";
import { TaskFailureError, toFailure } from "../../inference-node/task-failure.ts";
import { WhisperError } from "../../native/index.ts";
import { FailRequest } from "../../protocol/node.ts";

/** What a node reports for what a task threw: always a code from the closed set, never parsed text. */
describe("toFailure", () => {
  it("keeps the code of a failure the pipeline classified", () => {
    expect(toFailure(new MediaError("media_empty", "the media file is empty"))).toEqual({
      code: "media_empty",
      message: "the media file is empty",
    });
    expect(toFailure(new TaskFailureError("language_required", "send a language")).code).toBe(
      "language_required",
    );
  });

  it("maps the addon's input refusals to input codes and its other errors to decoder_error", () => {
    const cases = [
      ["ERR_UNKNOWN_LANGUAGE", "unsupported_language"],
      ["ERR_INVALID_AUDIO", "media_unreadable"],
      ["ERR_EMPTY_AUDIO", "media_empty"],
      ["ERR_INVALID_OPTION", "invalid_params"],
      ["ERR_DECODE_FAILED", "decoder_error"],
      ["ERR_OUT_OF_MEMORY", "decoder_error"],
    ] as const;
    for (const [whisper, code] of cases) {
      expect(toFailure(new WhisperError(whisper, "x")).code).toBe(code);
    }
  });

  it("reports anything unexpected as a retryable internal_error, within the protocol's bounds", () => {
    const failure = toFailure(new Error("x".repeat(10_000)));
    expect(failure.code).toBe("internal_error");
    expect(FailRequest.safeParse(failure).success).toBe(true);
    expect(toFailure("thrown text").message).toBe("thrown text");
    expect(FailRequest.safeParse(toFailure(new Error(""))).success).toBe(true);
  });
});
