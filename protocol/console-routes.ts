/**
 * The web console's page paths, shared by its client-side router (web/src/app.tsx) and the Worker,
 * which answers a browser's page navigation to one of them with the console's index.html. A page
 * added to the console is added here once; `:name` matches one path segment.
 *
 * Some paths are also API resources (`/` is the API root, `/history` the history list): the Worker
 * gives the page only to a navigation that carries no API key, so API clients see no change.
 */
export const CONSOLE_PAGES = {
  transcribe: "/",
  history: "/history",
  job: "/jobs/:id",
  live: "/live",
  translate: "/translate",
  studio: "/studio",
  /** A translation room; also what a second person opens from its QR code (join_url). */
  room: "/join/:id",
  /** Enrolled speakers (/v1/speakers): voices async jobs name their speakers after. */
  speakers: "/speakers",
} as const;

export type ConsolePage = keyof typeof CONSOLE_PAGES;

/**
 * Pages that work without an API key: a room's conversation id is its capability (whoever holds the
 * join link may join), so the console's sign-in gate lets these through.
 */
export const KEYLESS_PAGES: ReadonlySet<ConsolePage> = new Set(["room"]);

/**
 * Whether `pathname` is one of the console's pages.
 *
 * @example isConsolePath("/jobs/6f1c1c9e") // true
 * @example isConsolePath("/jobs/a/b") // false
 */
export function isConsolePath(pathname: string): boolean {
  return consolePageOf(pathname) !== null;
}

/**
 * Which console page `pathname` is; null for any other path.
 *
 * @example consolePageOf("/join/2b7e…") // "room"
 */
export function consolePageOf(pathname: string): ConsolePage | null {
  const parts = pathname.split("/");
  for (const [page, pattern] of Object.entries(CONSOLE_PAGES) as [ConsolePage, string][]) {
    const want = pattern.split("/");
    if (want.length !== parts.length) continue;
    if (want.every((segment, i) => (segment.startsWith(":") ? Boolean(parts[i]) : segment === parts[i]))) {
      return page;
    }
  }
  return null;
}

/**
 * A page path with its parameters filled in (encoded).
 *
 * @example consolePath("job", { id: "abc" }) // "/jobs/abc"
 */
export function consolePath(page: ConsolePage, params: Record<string, string> = {}): string {
  return CONSOLE_PAGES[page].replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}

/**
 * Where the API reference UI behind /docs lies among the console's assets: the web build copies
 * Swagger UI's prebuilt bundle and stylesheet (swagger-ui-dist) here, so /docs loads nothing from
 * outside the deployment.
 */
export const DOCS_UI_ASSETS = {
  script: "/vendor/swagger-ui-bundle.js",
  style: "/vendor/swagger-ui.css",
} as const;
