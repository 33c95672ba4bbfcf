/**
 * Pre-converted ggml whisper models published by the whisper.cpp project.
 *
 * Names: the list in whisper.cpp's models/download-ggml-model.sh (1.9.1).
 * SHA-1: the "Available models" table in whisper.cpp's models/README.md (1.9.1). Models that table
 * does not list have no known hash: they download unverified, with a warning.
 */

export const DEFAULT_BASE_URL = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";
/** tinydiarize models live in their author's repository. */
const TDRZ_BASE_URL = "https://huggingface.co/akashmjn/tinydiarize-whisper.cpp/resolve/main";

export const MODEL_NAMES = [
  "tiny",
  "tiny.en",
  "tiny-q5_1",
  "tiny.en-q5_1",
  "tiny-q8_0",
  "base",
  "base.en",
  "base-q5_1",
  "base.en-q5_1",
  "base-q8_0",
  "small",
  "small.en",
  "small.en-tdrz",
  "small-q5_1",
  "small.en-q5_1",
  "small-q8_0",
  "medium",
  "medium.en",
  "medium-q5_0",
  "medium.en-q5_0",
  "medium-q8_0",
  "large-v1",
  "large-v2",
  "large-v2-q5_0",
  "large-v2-q8_0",
  "large-v3",
  "large-v3-q5_0",
  "large-v3-turbo",
  "large-v3-turbo-q5_0",
  "large-v3-turbo-q8_0",
] as const;

export type ModelName = (typeof MODEL_NAMES)[number];

const SHA1: Partial<Record<ModelName, string>> = {
  tiny: "bd577a113a864445d4c299885e0cb97d4ba92b5f",
  "tiny.en": "c78c86eb1a8faa21b369bcd33207cc90d64ae9df",
  base: "465707469ff3a37a2b9b8d8f89f2f99de7299dac",
  "base.en": "137c40403d78fd54d454da0f9bd998f78703390c",
  small: "55356645c2b361a969dfd0ef2c5a50d530afd8d5",
  "small.en": "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022",
  "small.en-tdrz": "b6c6e7e89af1a35c08e6de56b66ca6a02a2fdfa1",
  medium: "fd9727b6e1217c2f614f9b698455c4ffd82463b4",
  "medium.en": "8c30f0e44ce9560643ebd10bbe50cd20eafd3723",
  "large-v1": "b1caaf735c4cc1429223d5a74f0f4d0b9b59a299",
  "large-v2": "0f4c8e34f21cf1a914c59d8b3ce882345ad349d6",
  "large-v2-q5_0": "00e39f2196344e901b3a2bd5814807a769bd1630",
  "large-v3": "ad82bf6a9043ceed055076d0fd39f5f186ff8062",
  "large-v3-q5_0": "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de",
  "large-v3-turbo": "4af2b29d7ec73d781377bfd1758ca957a807e941",
  "large-v3-turbo-q5_0": "e050f7970618a659205450ad97eb95a18d69c9ee",
};

export interface CatalogEntry {
  name: ModelName;
  /** File name on the server and on disk. */
  file: string;
  /** Published SHA-1, or null when whisper.cpp lists none. */
  sha1: string | null;
  /** Where it lives by default. */
  baseUrl: string;
}

export function isModelName(name: string): name is ModelName {
  return (MODEL_NAMES as readonly string[]).includes(name);
}

/**
 * Catalog entry of a model name, or null for a name whisper.cpp does not publish.
 *
 * @example
 * lookupModel("base-q5_1"); // { file: "ggml-base-q5_1.bin", sha1: null, ... }
 */
export function lookupModel(name: string): CatalogEntry | null {
  if (!isModelName(name)) return null;
  return {
    name,
    file: `ggml-${name}.bin`,
    sha1: SHA1[name] ?? null,
    baseUrl: name.includes("tdrz") ? TDRZ_BASE_URL : DEFAULT_BASE_URL,
  };
}
