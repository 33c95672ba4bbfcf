/**
 * A client's value quoted in an error message. Messages say what was sent, but a 16 KB field sent
 * back whole buries the reason in it (and in every log line that keeps the message): at most
 * QUOTED_MAX_CHARS characters of it are shown, with its length.
 */
export const QUOTED_MAX_CHARS = 64;

/**
 * @example quoted("robot") // "\"robot\""
 * @example quoted("x".repeat(5000)) // "\"xxxx…xxx…\" (5000 characters)"
 */
export function quoted(value: string): string {
  const chars = [...value];
  if (chars.length <= QUOTED_MAX_CHARS) return `"${value}"`;
  return `"${chars.slice(0, QUOTED_MAX_CHARS).join("")}…" (${chars.length} characters)`;
}
