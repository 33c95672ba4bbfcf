import { describe, expect, it } from "vitest";
import { pcmWavHeader, readWav, wavDurationSec } from "../../protocol/wav.ts";

/** protocol/wav.ts, the one WAV reader of the Worker and the node, on headers ffmpeg and others write. */

/** A RIFF/WAVE of the given chunks (id, body), padded as RIFF pads them. */
function riff(chunks: [string, Uint8Array][], riffTag = "RIFF"): Uint8Array {
  const parts = chunks.map(([id, body]) => {
    const out = new Uint8Array(8 + body.byteLength + (body.byteLength % 2));
    out.set(new TextEncoder().encode(id));
    new DataView(out.buffer).setUint32(4, body.byteLength, true);
    out.set(body, 8);
    return out;
  });
  const total = 12 + parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(total);
  out.set(new TextEncoder().encode(`${riffTag}....WAVE`));
  new DataView(out.buffer).setUint32(4, total - 8, true);
  let at = 12;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** A 40-byte WAVE_FORMAT_EXTENSIBLE fmt body of sub-format `codec` (1 PCM, 3 float). */
function extensibleFmt(codec: number, channels: number, rate: number, bits: number): Uint8Array {
  const fmt = new Uint8Array(40);
  const view = new DataView(fmt.buffer);
  const frame = channels * (bits / 8);
  view.setUint16(0, 0xfffe, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, rate, true);
  view.setUint32(8, rate * frame, true);
  view.setUint16(12, frame, true);
  view.setUint16(14, bits, true);
  view.setUint16(16, 22, true);
  view.setUint16(24, codec, true);
  fmt.set([0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71], 26);
  return fmt;
}

describe("protocol/wav.ts", () => {
  it("reads back the header it writes, with the duration from the byte rate", () => {
    const header = pcmWavHeader({ channels: 2, sampleRate: 44_100, bitsPerSample: 16 }, 44_100 * 4 * 3);
    const wav = readWav(header, 44 + 44_100 * 4 * 3);
    expect(wav).toMatchObject({
      kind: "wav",
      format: { encoding: "pcm", channels: 2, sampleRate: 44_100, blockAlign: 4, byteRate: 176_400 },
      dataOffset: 44,
      dataBytes: 44_100 * 4 * 3,
    });
    if (wav.kind === "wav") expect(wavDurationSec(wav)).toBe(3);
  });

  it("reads WAVE_FORMAT_EXTENSIBLE by its sub-format, past a LIST chunk, and a streamed size to the end", () => {
    const data = new Uint8Array(1000);
    const bytes = riff([
      ["fmt ", extensibleFmt(3, 1, 48_000, 32)],
      ["LIST", new Uint8Array(25)],
      ["data", data],
    ]);
    const at = bytes.byteLength - 1000 - 4;
    new DataView(bytes.buffer).setUint32(at, 0xffffffff, true);
    expect(readWav(bytes)).toMatchObject({
      kind: "wav",
      format: { encoding: "float", bitsPerSample: 32 },
      dataBytes: 1000,
      declaredDataBytes: 0xffffffff,
    });
  });

  it("cuts the data to whole frames of what the file holds", () => {
    const header = pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, 32_000);
    expect(readWav(header, 44 + 1001)).toMatchObject({ kind: "wav", dataBytes: 1000 });
  });

  it("names what is wrong with a header it refuses, and tells another container apart", () => {
    const pcm = pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, 0);
    const withRate = (rate: number) => {
      const copy = pcm.slice();
      new DataView(copy.buffer).setUint32(24, rate, true);
      new DataView(copy.buffer).setUint32(28, rate * 2, true);
      return copy;
    };
    expect(readWav(withRate(7999))).toMatchObject({
      kind: "invalid",
      reason: expect.stringContaining("sample rate"),
    });
    expect(readWav(withRate(192_001)).kind).toBe("invalid");
    expect(readWav(withRate(192_000)).kind).toBe("wav");
    expect(readWav(riff([["data", new Uint8Array(4)]]))).toMatchObject({
      kind: "invalid",
      reason: expect.stringContaining("before its fmt chunk"),
    });
    expect(readWav(riff([["fmt ", extensibleFmt(1, 1, 16_000, 16)]], "RF64")).kind).toBe("not_wav");
    expect(readWav(new TextEncoder().encode("ID3\u0004 an mp3")).kind).toBe("not_wav");
  });

  it("takes a codec it does not split (µ-law) as a WAV of encoding other, its rate still checked", () => {
    const fmt = new Uint8Array(16);
    const view = new DataView(fmt.buffer);
    view.setUint16(0, 7, true);
    view.setUint16(2, 1, true);
    view.setUint32(4, 8000, true);
    view.setUint32(8, 8000, true);
    view.setUint16(12, 1, true);
    view.setUint16(14, 8, true);
    expect(
      readWav(
        riff([
          ["fmt ", fmt],
          ["data", new Uint8Array(10)],
        ]),
      ),
    ).toMatchObject({
      kind: "wav",
      format: { encoding: "other" },
      dataBytes: 10,
    });
    view.setUint32(4, 1, true);
    expect(
      readWav(
        riff([
          ["fmt ", fmt],
          ["data", new Uint8Array(10)],
        ]),
      ).kind,
    ).toBe("invalid");
  });
});
