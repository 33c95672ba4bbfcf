import workletUrl from "./pcm-worklet.ts?worker&url";

/** An open microphone feeding PCM chunks; `close()` releases the device and the audio graph. */
export interface Microphone {
  close: () => Promise<void>;
}

/**
 * Opens the microphone and streams it as 100 ms PCM16 LE 16 kHz mono chunks through the "pcm16"
 * AudioWorklet, with the input level (0..1) of each chunk. Rejects with the browser's DOMException when
 * permission is refused or no device exists, and with a SecurityError on a page that is not a secure
 * context (plain http other than localhost), where browsers offer no microphone at all.
 *
 * @example const mic = await openMicrophone((pcm, level) => { socket.send(pcm); meter.value = level; });
 */
export async function openMicrophone(
  onChunk: (pcm: ArrayBuffer, level: number) => void,
): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new DOMException("the microphone needs a secure (https) page", "SecurityError");
  }
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  const context = new AudioContext();
  try {
    await context.audioWorklet.addModule(workletUrl);
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, "pcm16", {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      channelCount: 1,
      channelCountMode: "explicit",
    });
    node.port.onmessage = (event: MessageEvent<{ pcm: ArrayBuffer; level: number }>) =>
      onChunk(event.data.pcm, event.data.level);
    // A silent path to the output keeps the graph pulling audio through the worklet in every browser.
    const mute = context.createGain();
    mute.gain.value = 0;
    source.connect(node).connect(mute).connect(context.destination);
    await context.resume();
  } catch (error) {
    for (const track of stream.getTracks()) track.stop();
    await context.close();
    throw error;
  }
  return {
    close: async () => {
      for (const track of stream.getTracks()) track.stop();
      await context.close();
    },
  };
}
