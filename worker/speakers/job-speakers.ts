import { quoted } from "../../protocol/quoted.ts";
import { ALL_SPEAKERS, MAX_KNOWN_SPEAKERS_PER_JOB } from "../../protocol/speakers.ts";
import type { KnownSpeaker } from "../../protocol/transcribe-params.ts";
import { ApiError } from "../errors.ts";
import { ownerRows } from "./speaker-store.ts";

/**
 * An async job's `known_speakers` (comma-separated enrolled names, or `all`) as the task's known
 * speakers, each pointing at its enrolled clip; undefined when the field is absent or blank. A name
 * the key has not enrolled, or more than MAX_KNOWN_SPEAKERS_PER_JOB voices, is a 400 in the route's
 * own envelope; `all` with no voice enrolled names nobody (undefined).
 *
 * @example await jobSpeakers(env, "key_1", "agent, customer") // [{ name: "agent", object_key: "speakers/key_1/spk_…", enrolled: true }, …]
 */
export async function jobSpeakers(
  env: Env,
  ownerId: string,
  value: string | null | undefined,
): Promise<KnownSpeaker[] | undefined> {
  const asked = (value ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (asked.length === 0) return undefined;
  const rows = await ownerRows(env, ownerId);
  const byName = new Map(rows.map((row) => [row.name, row]));
  const all = asked.length === 1 && asked[0]?.toLowerCase() === ALL_SPEAKERS;
  const names = all ? rows.map((row) => row.name) : [...new Set(asked)];
  const unknown = names.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    throw new ApiError(
      "bad_request",
      `known_speakers names no enrolled speaker of this API key: ${unknown.map(quoted).join(", ")} ` +
        "(enrol them with POST /v1/speakers, see GET /v1/speakers)",
    );
  }
  if (names.length > MAX_KNOWN_SPEAKERS_PER_JOB) {
    throw new ApiError(
      "bad_request",
      `known_speakers names ${names.length} voices; a job may name at most ${MAX_KNOWN_SPEAKERS_PER_JOB}` +
        (all ? ": list the ones this recording may hold instead of all" : ""),
    );
  }
  if (names.length === 0) return undefined;
  return names.flatMap((name) => {
    const row = byName.get(name);
    return row ? [{ name, object_key: row.object_key, enrolled: true }] : [];
  });
}
