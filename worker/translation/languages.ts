import { workerConfig } from "../../platform/config.ts";
import { LANGUAGES, languageName } from "../../protocol/languages.ts";
import { translationLanguage } from "../../protocol/rooms.ts";
import { ApiError } from "../errors.ts";
import { liveNodesOfFleet } from "../tasks/fleet.ts";

type Named = [code: string, name: string];

/** GET /api/v1/languages */
export interface LanguagesView {
  /** Languages the deployment can hear and translate (each in at least one translation pair). */
  supported_languages: Named[];
  default_source: string;
  default_target: string;
  /** Every direction the connected nodes' translation backends offer, [from, to]. */
  translation_pairs: [string, string][];
  /** Every language speech recognition hears. */
  asr_languages: Named[];
}

const named = (code: string): Named => [code, languageName(code) ?? code];
const byName = (a: Named, b: Named) => a[1].localeCompare(b[1]);

/**
 * The language list from the nodes' reports: the union of their translation pairs (languages the API
 * does not know are left out). The configured defaults are used when the deployment translates that
 * pair, else the first pair it offers. Null when no node translates anything.
 *
 * @example
 * languagesFrom([{ mt_pairs: [["en", "es"], ["es", "en"]], ... }], { source: "en", target: "es" });
 * // { supported_languages: [["en", "English"], ["es", "Spanish"]], default_source: "en", default_target: "es", ... }
 */
export function languagesFrom(
  nodes: readonly { mt_loaded: boolean; mt_pairs?: readonly (readonly string[])[] }[],
  defaults: { source: string; target: string },
): LanguagesView | null {
  const pairs = new Map<string, [string, string]>();
  for (const node of nodes) {
    if (!node.mt_loaded) continue;
    for (const [from = "", to = ""] of node.mt_pairs ?? []) {
      if (languageName(from) && languageName(to) && from !== to) pairs.set(`${from}|${to}`, [from, to]);
    }
  }
  if (pairs.size === 0) return null;
  const sorted = [...pairs.values()].sort((a, b) => `${a[0]}|${a[1]}`.localeCompare(`${b[0]}|${b[1]}`));
  const source = translationLanguage(defaults.source) ?? "";
  const target = translationLanguage(defaults.target) ?? "";
  const [defaultSource, defaultTarget] = pairs.has(`${source}|${target}`)
    ? [source, target]
    : (sorted[0] ?? ["", ""]);
  const codes = new Set(sorted.flat());
  return {
    supported_languages: [...codes].map(named).sort(byName),
    default_source: defaultSource,
    default_target: defaultTarget,
    translation_pairs: sorted,
    asr_languages: Object.keys(LANGUAGES).map(named).sort(byName),
  };
}

/**
 * How many nodes are connected and the languages their translation backends offer (null view when
 * none translates). Rejects when the node table cannot be read: each caller decides what that means
 * for its request (refuse with 503, or let the node decide).
 */
export async function fleetLanguages(env: Env): Promise<{ connected: number; view: LanguagesView | null }> {
  const nodes = await liveNodesOfFleet(env);
  return { connected: nodes.length, view: languagesFrom(nodes, workerConfig(env).translateDefaults) };
}

/** Pairs as an error message lists them. @example describePairs([["en", "es"]]) // "en->es" */
export function describePairs(pairs: readonly (readonly [string, string])[]): string {
  return pairs.length > 0 ? pairs.map(([from, to]) => `${from}->${to}`).join(", ") : "none";
}

/** The deployment's languages now; 503 while no node translates or the node table cannot be read. */
export async function readLanguages(env: Env): Promise<LanguagesView> {
  let view: LanguagesView | null;
  try {
    ({ view } = await fleetLanguages(env));
  } catch (cause) {
    console.error(JSON.stringify({ languages: "node table unavailable", error: String(cause) }));
    throw new ApiError("service_unavailable", "the language service is temporarily unavailable; try again");
  }
  if (!view) {
    throw new ApiError("service_unavailable", "no translation engine is connected; try again later");
  }
  return view;
}
