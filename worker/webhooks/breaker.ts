import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { db } from "../../platform/db.ts";
import { webhookHosts } from "../../platform/schema.ts";
import type { AttemptVerdict } from "./retry-policy.ts";

/**
 * The circuit breaker of webhook target hosts: after WEBHOOK_BREAKER_FAILURES failed attempts in a
 * row to one `host:port` (no answer, 5xx, 429), attempts to it are deferred without connecting for
 * WEBHOOK_BREAKER_COOLDOWN_MS; then one attempt (the probe) goes through: its success closes the
 * breaker, its failure opens it for another cool-down. A receiver that hangs costs one consumer slot
 * per cool-down instead of one per delivery.
 *
 * The state is a D1 row per failing host (platform/schema.ts `webhook_hosts`), written with atomic
 * SQL, so every consumer invocation, isolate and location sees the same count and a deploy keeps it.
 * The reads and writes it adds (one before an attempt, one after) are small beside the attempt's own
 * three; a Durable Object per host would serialise them too, at the cost of another class and binding.
 */

/** Failed attempts in a row to one host that open its breaker. */
export const WEBHOOK_BREAKER_FAILURES = 5;
/** How long an open breaker defers attempts to its host before letting one probe through. */
export const WEBHOOK_BREAKER_COOLDOWN_MS = 60_000;
/** A host's row untouched this long is forgotten by the cron sweep (its failures are old news). */
export const WEBHOOK_HOST_FORGET_MS = 24 * 60 * 60 * 1000;

type HostRow = typeof webhookHosts.$inferSelect;

/** Whether an attempt to a host may connect now. */
export type Gate = { open: false } | { open: true; until: number };

/**
 * What a host's row says about an attempt at `now`: none or under the threshold, go; open and cooling
 * down, wait until `open_until`; cooled down, a probe may go (the caller claims it).
 *
 * @example gateOf({ host: "h:443", failures: 5, open_until: 2000, updated_at: 0 }, 1000) // wait until 2000
 */
export function gateOf(row: HostRow | undefined, now: number): "go" | "probe" | { waitUntil: number } {
  if (!row || row.failures < WEBHOOK_BREAKER_FAILURES) return "go";
  if (row.open_until !== null && row.open_until > now) return { waitUntil: row.open_until };
  return "probe";
}

/**
 * The breaker's answer for an attempt to `host` at `now`. Of the attempts that find it cooled down,
 * one claims the probe (pushing `open_until` one cool-down on); the others wait for that.
 */
export async function hostGate(env: Env, host: string, now: number): Promise<Gate> {
  const row = await db(env).select().from(webhookHosts).where(eq(webhookHosts.host, host)).get();
  const gate = gateOf(row, now);
  if (gate === "go") return { open: false };
  if (gate !== "probe") return { open: true, until: gate.waitUntil };
  const until = now + WEBHOOK_BREAKER_COOLDOWN_MS;
  const probe = await db(env)
    .update(webhookHosts)
    .set({ open_until: until, updated_at: now })
    .where(
      and(
        eq(webhookHosts.host, host),
        or(isNull(webhookHosts.open_until), lte(webhookHosts.open_until, now)),
      ),
    )
    .returning({ host: webhookHosts.host });
  return probe.length > 0 ? { open: false } : { open: true, until };
}

/**
 * Counts an attempt's verdict against its host: a failure worth retrying adds one (opening the
 * breaker at the threshold, re-opening it after a failed probe); any answer that is not a 5xx or 429
 * shows the host alive and forgets it. A refused URL (never sent) says nothing about the host.
 */
export async function recordHostOutcome(
  env: Env,
  host: string,
  verdict: AttemptVerdict,
  answered: boolean,
  now: number,
): Promise<void> {
  if (verdict === "retry") {
    const opensAt = WEBHOOK_BREAKER_FAILURES;
    const until = now + WEBHOOK_BREAKER_COOLDOWN_MS;
    await db(env)
      .insert(webhookHosts)
      .values({ host, failures: 1, open_until: opensAt <= 1 ? until : null, updated_at: now })
      .onConflictDoUpdate({
        target: webhookHosts.host,
        set: {
          failures: sql`${webhookHosts.failures} + 1`,
          open_until: sql`CASE WHEN ${webhookHosts.failures} + 1 >= ${opensAt} THEN ${until} ELSE ${webhookHosts.open_until} END`,
          updated_at: now,
        },
      });
  } else if (answered) {
    await db(env).delete(webhookHosts).where(eq(webhookHosts.host, host));
  }
}

/** Forgets hosts whose last failure is older than WEBHOOK_HOST_FORGET_MS (run by the cron sweep). */
export async function forgetOldHosts(env: Env, now: number): Promise<void> {
  await db(env)
    .delete(webhookHosts)
    .where(lte(webhookHosts.updated_at, now - WEBHOOK_HOST_FORGET_MS));
}
