import { signal } from "@preact/signals";

/**
 * The API key the console calls the API with. Kept in localStorage so a reload keeps the session;
 * sign-out forgets it (and every per-key item the console stored).
 */
const STORAGE_KEY = "voxedge.apiKey";
/** Items that belong to the signed-in key and go with it at sign-out. */
const PER_KEY_PREFIXES = ["voxedge.openJobs", "voxedge.speakers.", "voxedge.studio."];

export const apiKey = signal<string | null>(localStorage.getItem(STORAGE_KEY));

export function signIn(key: string): void {
  localStorage.setItem(STORAGE_KEY, key);
  apiKey.value = key;
}

/** Forgets the key and everything kept for it, then starts the console afresh (no state of it stays in memory). */
export function signOut(): void {
  localStorage.removeItem(STORAGE_KEY);
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const item = localStorage.key(i);
    if (item && PER_KEY_PREFIXES.some((prefix) => item.startsWith(prefix))) localStorage.removeItem(item);
  }
  apiKey.value = null;
  location.assign("/");
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The local dev key that `npm start` exposes, to pre-fill the sign-in form. Asked for only when the
 * console itself is on a loopback address; the Worker answers 404 anywhere else (worker/routes/console.ts).
 */
export async function localDevKey(): Promise<string | null> {
  if (!LOOPBACK.has(location.hostname)) return null;
  try {
    const response = await fetch("/console/dev-key", { cache: "no-store" });
    if (!response.ok) return null;
    const body = (await response.json()) as { key?: unknown };
    return typeof body.key === "string" ? body.key : null;
  } catch {
    return null;
  }
}
