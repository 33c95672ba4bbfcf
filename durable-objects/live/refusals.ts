/** Why a live stream could not get an engine: the refusals a shard and the live plane's calls share. */
export type ClaimRefusal = {
  ok: false;
  reason: "busy" | "no_engine" | "full" | "key_limit";
  message: string;
};

export const NO_ENGINE: ClaimRefusal = {
  ok: false,
  reason: "no_engine",
  message: "no streaming engine is connected; try again later",
};

export const FULL: ClaimRefusal = {
  ok: false,
  reason: "full",
  message: "every streaming engine is busy; try again later",
};
