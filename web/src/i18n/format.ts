/**
 * How one UI message becomes text: its plural form for a count, then its `{name}` placeholders filled.
 * Pure (no browser state), so the console's tests run it in Node.
 */

/**
 * A message that reads differently for one thing than for several ("1 segment", "2 segments"). The
 * form is chosen by the language's own plural rules (Intl.PluralRules) from the `count` parameter;
 * a language that does not inflect for number (Vietnamese) writes one string instead.
 */
export interface Plural {
  readonly one: string;
  readonly other: string;
}

export type Message = string | Plural;

const rulesByLocale = new Map<string, Intl.PluralRules>();

function pluralRules(locale: string): Intl.PluralRules {
  let rules = rulesByLocale.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    rulesByLocale.set(locale, rules);
  }
  return rules;
}

/**
 * `message` as text in `locale`: the plural form `params.count` asks for, placeholders filled from
 * `params` (one without a value stays as written, so a missing parameter shows).
 *
 * @example formatMessage({ one: "{count} segment", other: "{count} segments" }, { count: 1 }, "en-US") // "1 segment"
 */
export function formatMessage(
  message: Message,
  params: Record<string, string | number>,
  locale: string,
): string {
  const text =
    typeof message === "string"
      ? message
      : pluralRules(locale).select(Number(params.count)) === "one"
        ? message.one
        : message.other;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}
