/** The Dispatcher of the default model pool (one object; shard by pool if one outgrows it). */
export function dispatcher(env: Env) {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName("default"));
}
