/**
 * A Node module hook for scripts that load the Worker's modules outside workerd: `cloudflare:workers`
 * (imported by the Durable Object classes) resolves to a stand-in with an empty `DurableObject` base.
 * Only for building documents from the route schemas; nothing here ever serves a request.
 */
const STAND_IN = "data:text/javascript,export class DurableObject {}";

export async function resolve(specifier, context, next) {
  if (specifier === "cloudflare:workers") return { url: STAND_IN, shortCircuit: true };
  return next(specifier, context);
}
