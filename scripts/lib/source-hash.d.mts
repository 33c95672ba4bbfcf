/** Types of scripts/lib/source-hash.mjs (plain JavaScript: build-web.mjs runs it from postinstall, before tsx is usable). */
export function sourceHash(root: string, sources: readonly string[], skipped: ReadonlySet<string>): string;
