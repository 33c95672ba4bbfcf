/** What the studio makes: a short (video), its audio alone, a quiz video, a slide deck. */
export type StudioKind = "short" | "audio" | "quiz" | "slide";
export const STUDIO_KINDS: readonly StudioKind[] = ["short", "audio", "quiz", "slide"];

/** What the studio keeps in localStorage belongs to the key: sign-out clears this prefix (auth/key-store.ts). */
export const STUDIO_STORAGE_PREFIX = "voxedge.studio.";
