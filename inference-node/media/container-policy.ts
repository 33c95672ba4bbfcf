import { open } from "node:fs/promises";

/**
 * What user media may be, whatever ffmpeg build decodes it. ffmpeg guesses the container from the
 * bytes, and some of its demuxers open other files or URLs named inside the input (HLS and DASH
 * playlists, concat/ffconcat lists, image sequences, lavfi graphs): an upload could make the node
 * decode a local file into its transcript. So only self-contained audio/video containers are let in.
 */

/**
 * ffmpeg demuxer names a task's media may use (ffmpeg's `-format_whitelist`; a demuxer with several
 * names, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, passes when one of them is here).
 */
export const ALLOWED_DEMUXERS = [
  "wav",
  "w64",
  "aiff",
  "caf",
  "mp3",
  "flac",
  "ogg",
  "matroska",
  "webm",
  "mov",
  "mp4",
  "m4a",
  "3gp",
  "aac",
  "amr",
  "amrnb",
  "amrwb",
  "asf",
  "wv",
  "avi",
  "flv",
  "mpeg",
  "mpegts",
] as const;

const allowed = new Set<string>(ALLOWED_DEMUXERS);

/** Whether a demuxer ffmpeg reports (its comma-separated names) is on the allow-list. */
export function isAllowedDemuxer(formatName: string): boolean {
  return formatName.split(",").some((name) => allowed.has(name.trim()));
}

/** ffmpeg input options that let it read local files and pipes only: no network, no nested protocols. */
export const LOCAL_INPUT_ARGS: readonly string[] = ["-protocol_whitelist", "file,pipe"];

/**
 * ffmpeg's pins for untrusted input: it may read only the local file and pipes (no network, no
 * nested protocols such as concat: or subfile:), and only through an allowed demuxer, which it
 * checks after guessing the container and before the demuxer opens anything.
 */
export const UNTRUSTED_INPUT_ARGS: readonly string[] = [
  ...LOCAL_INPUT_ARGS,
  "-format_whitelist",
  ALLOWED_DEMUXERS.join(","),
];

/** How much of the file the indirection check reads: every signature sits at the very start. */
const HEAD_BYTES = 512;

/**
 * Text that makes ffmpeg (or a later ffmpeg build) open something else: playlists, manifests,
 * concat lists, protocol URLs. Checked before ffmpeg runs at all, so the refusal does not depend on
 * which demuxers the installed build has.
 */
const INDIRECTIONS: readonly [RegExp, string][] = [
  [/^#EXTM3U/i, "an HLS/M3U playlist"],
  [/^ffconcat\s/i, "an ffconcat list"],
  [/^(#[^\n]*\n\s*)*file\s+['"]?\S/i, "a concat list"],
  [/^<\?xml[\s\S]*<MPD[\s>]|^<MPD[\s>]/i, "a DASH manifest"],
  [/^<\?xml[\s\S]*<smil[\s>]|^<smil[\s>]/i, "a SMIL playlist"],
  [/^\[playlist\]/i, "a PLS playlist"],
  [/^[a-z][a-z0-9+.-]{1,31}:\S/i, "a URL or protocol reference (file:, http:, concat:...)"],
];

/**
 * Names the kind of indirection `file` is when its first bytes are a playlist, manifest or URL
 * reference; null for anything else (binary media, other text, an empty file).
 *
 * @example await indirectionIn("upload.mp3") // "an HLS/M3U playlist" for "#EXTM3U\n/tmp/private.wav"
 */
export async function indirectionIn(file: string): Promise<string | null> {
  const handle = await open(file, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    // a UTF-8 or UTF-16 byte-order mark and leading blank lines do not stop ffmpeg's text probes
    const text = head
      .subarray(0, bytesRead)
      .toString("latin1")
      .replace(/^(\xef\xbb\xbf|\xff\xfe|\xfe\xff)/, "")
      .replace(/\0/g, "")
      .trimStart();
    return INDIRECTIONS.find(([pattern]) => pattern.test(text))?.[1] ?? null;
  } finally {
    await handle.close();
  }
}
