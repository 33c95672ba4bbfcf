/** PCM16 little-endian ↔ Float32 conversion for the live wire format (16 kHz mono). */

/**
 * Decodes PCM16 LE bytes to samples in [-1, 1). A trailing odd byte is ignored (the session already
 * refuses odd-length frames).
 *
 * @example pcm16ToFloat32(Buffer.from([0x00, 0x40])); // Float32Array [0.5]
 */
export function pcm16ToFloat32(bytes: Uint8Array): Float32Array {
  const count = bytes.length >> 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

/**
 * Encodes samples as PCM16 LE bytes, clipping to the 16-bit range (what a client sends).
 *
 * @example float32ToPcm16(new Float32Array([0.5])); // Uint8Array [0x00, 0x40]
 */
export function float32ToPcm16(samples: Float32Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(i * 2, Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * 32768))), true);
  }
  return out;
}
