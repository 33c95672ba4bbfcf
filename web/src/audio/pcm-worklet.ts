/**
 * The AudioWorklet processor "pcm16": microphone samples in, 100 ms PCM16 LE 16 kHz chunks and a
 * level reading out (posted to the main thread, which sends the chunks on the socket). Runs in the
 * audio rendering thread, hence the globals declared below.
 */
import { LIVE_RATE, levelOf, Pcm16Encoder } from "./pcm16.ts";

declare const sampleRate: number;
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

/** 100 ms of 16 kHz audio per chunk: 3,200 bytes, well under the 64 KiB frame limit. */
const CHUNK_SAMPLES = LIVE_RATE / 10;

class Pcm16Processor extends AudioWorkletProcessor {
  private readonly encoder = new Pcm16Encoder(sampleRate, CHUNK_SAMPLES);
  private levelSum = 0;
  private levelBlocks = 0;

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    this.levelSum += levelOf(channel);
    this.levelBlocks++;
    for (const pcm of this.encoder.push(channel)) {
      this.port.postMessage({ pcm, level: this.levelSum / this.levelBlocks }, [pcm]);
      this.levelSum = 0;
      this.levelBlocks = 0;
    }
    return true;
  }
}

registerProcessor("pcm16", Pcm16Processor);
