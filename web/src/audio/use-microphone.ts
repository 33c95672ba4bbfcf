import { useEffect, useRef, useState } from "preact/hooks";
import { type Microphone, openMicrophone } from "./microphone.ts";

export type MicState = "off" | "opening" | "on";

export interface MicrophoneControl {
  state: MicState;
  /** Input level of the last chunk, 0..1 (0 while off). */
  level: number;
  /** Why the last start failed (permission refused, no device, not a secure page); null otherwise. */
  error: unknown;
  /** Opens the microphone; resolves whether it is on. */
  start: () => Promise<boolean>;
  stop: () => void;
}

/**
 * The microphone as a page uses it: opened on demand, each 100 ms PCM16 chunk handed to `onChunk` (the
 * latest one given, so it may close over current state), released on stop and when the page goes.
 *
 * @example const mic = useMicrophone((pcm) => socket.current?.send(pcm));
 */
export function useMicrophone(onChunk: (pcm: ArrayBuffer) => void): MicrophoneControl {
  const sink = useRef(onChunk);
  sink.current = onChunk;
  const mic = useRef<Microphone | null>(null);
  /** Bumped by every stop, so an open that finishes after it is closed at once. */
  const generation = useRef(0);
  const [state, setState] = useState<MicState>("off");
  const [level, setLevel] = useState(0);
  const [error, setError] = useState<unknown>(null);

  useEffect(
    () => () => {
      generation.current++;
      void mic.current?.close();
      mic.current = null;
    },
    [],
  );

  const start = async (): Promise<boolean> => {
    if (mic.current) return true;
    const mine = ++generation.current;
    setError(null);
    setState("opening");
    try {
      const opened = await openMicrophone((pcm, chunkLevel) => {
        setLevel(chunkLevel);
        sink.current(pcm);
      });
      if (mine !== generation.current) {
        await opened.close();
        return false;
      }
      mic.current = opened;
      setState("on");
      return true;
    } catch (caught) {
      if (mine === generation.current) {
        setError(caught);
        setState("off");
      }
      return false;
    }
  };

  const stop = () => {
    generation.current++;
    void mic.current?.close();
    mic.current = null;
    setLevel(0);
    setState("off");
  };

  return { state, level, error, start, stop };
}
