/**
 * One native decode seen from JS: progress forwarding, AbortSignal wiring and error mapping.
 * Shared by WhisperModel.transcribe and StreamDecoder.decode.
 */
import type { NativeDecodeControl, NativeProgress, NativeResult } from "./addon-types.ts";
import {
  AbortError,
  type DecodeOptions,
  type Transcript,
  toTranscript,
  toWhisperError,
} from "./transcript.ts";

export type Start = (control: NativeDecodeControl, onProgress?: NativeProgress) => Promise<NativeResult>;

/** Runs one native decode with abort and progress wiring; `track` sees the native promise. */
export function runDecode(
  newControl: () => NativeDecodeControl,
  start: Start,
  opts: DecodeOptions,
  track: (p: Promise<unknown>) => void,
): Promise<Transcript> {
  const { signal, onProgress } = opts;
  if (signal?.aborted) return Promise.reject(new AbortError(signal.reason));
  const control = newControl();
  let settled = false;
  let lastPercent = -1;
  const progress = onProgress
    ? (percent: number) => {
        if (settled || percent <= lastPercent) return;
        lastPercent = percent;
        try {
          onProgress(percent);
        } catch (err) {
          process.emitWarning(`onProgress threw: ${String(err)}`);
        }
      }
    : undefined;
  let native: Promise<NativeResult>;
  try {
    native = start(control, progress);
  } catch (err) {
    return Promise.reject(toWhisperError(err));
  }
  track(native);
  return new Promise<Transcript>((resolve, reject) => {
    // reject at once: the native side stops at its next check (one encoder pass at worst)
    const onAbort = () => {
      control.abort();
      settled = true;
      reject(new AbortError(signal?.reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    native.then(
      (res) => {
        // The addon's progress calls travel on their own queue and may land after the result: the
        // caller sees 100 before the promise resolves, and nothing after.
        progress?.(100);
        settled = true;
        resolve(toTranscript(res));
      },
      (err: unknown) => {
        settled = true;
        const aborted = (err as { code?: string }).code === "ERR_ABORTED";
        reject(aborted ? new AbortError(signal?.reason) : toWhisperError(err));
      },
    );
    native.finally(() => signal?.removeEventListener("abort", onAbort)).catch(() => undefined);
  });
}
