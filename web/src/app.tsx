import { Component, type ComponentChildren } from "preact";
import { LocationProvider, lazy, Route, Router, useLocation } from "preact-iso";
import {
  CONSOLE_PAGES,
  type ConsolePage,
  consolePageOf,
  KEYLESS_PAGES,
} from "../../protocol/console-routes.ts";
import { apiKey, signOut } from "./auth/key-store.ts";
import { SignIn } from "./auth/sign-in.tsx";
import { LANGS, type Lang, lang, setLang, t } from "./i18n/i18n.ts";
import type { MessageKey } from "./i18n/messages.ts";
import TranscribePage from "./transcribe/transcribe-page.tsx";
import { ModelNotice } from "./ui/model-notice.tsx";

/**
 * The console's shell and its pages. Adding a page: its path in protocol/console-routes.ts (so the
 * Worker serves index.html there), a lazy import and a <Route> below, a nav entry if it is a top-level
 * page, and its strings in i18n/messages.ts. Only the landing page is in the initial bundle.
 */
const HistoryPage = lazy(() => import("./history/history-page.tsx"));
const JobPage = lazy(() => import("./job/job-page.tsx"));
const LivePage = lazy(() => import("./live/live-page.tsx"));
const TranslatePage = lazy(() => import("./translate/translate-page.tsx"));
const RoomPage = lazy(() => import("./room/room-page.tsx"));
const StudioPage = lazy(() => import("./studio/studio-page.tsx"));
const SpeakersPage = lazy(() => import("./speakers/speakers-page.tsx"));

const NAV: readonly { page: ConsolePage; label: MessageKey }[] = [
  { page: "transcribe", label: "nav.transcribe" },
  { page: "history", label: "nav.history" },
  { page: "live", label: "nav.live" },
  { page: "translate", label: "nav.translate" },
  { page: "studio", label: "nav.studio" },
  { page: "speakers", label: "nav.speakers" },
];

/** Links the client-side router takes over: console pages only (/docs and /media are the server's). */
const CONSOLE_SCOPE = new RegExp(
  `^(?:${Object.values(CONSOLE_PAGES)
    .map((pattern) => pattern.replace(/:\w+/g, "[^/?#]+"))
    .join("|")})(?:[?#].*)?$`,
);

export function App() {
  return (
    <LocationProvider scope={CONSOLE_SCOPE}>
      <a class="skip-link" href="#main">
        {t("nav.skip")}
      </a>
      <Header />
      <main id="main" tabIndex={-1}>
        <Pages />
      </main>
      <ModelNotice />
    </LocationProvider>
  );
}

function Pages() {
  const { path } = useLocation();
  const page = consolePageOf(path);
  // A room's link is its capability: whoever opens it joins without a key.
  if (!apiKey.value && !(page && KEYLESS_PAGES.has(page))) return <SignIn />;
  // Keyed by path: a page that failed does not keep the next one from rendering.
  return (
    <Boundary key={path}>
      <Router>
        <Route path={CONSOLE_PAGES.transcribe} component={TranscribePage} />
        <Route path={CONSOLE_PAGES.history} component={HistoryPage} />
        <Route path={CONSOLE_PAGES.job} component={JobPage} />
        <Route path={CONSOLE_PAGES.live} component={LivePage} />
        <Route path={CONSOLE_PAGES.translate} component={TranslatePage} />
        <Route path={CONSOLE_PAGES.room} component={RoomPage} />
        <Route path={CONSOLE_PAGES.studio} component={StudioPage} />
        <Route path={CONSOLE_PAGES.speakers} component={SpeakersPage} />
        <Route default component={NotFound} />
      </Router>
    </Boundary>
  );
}

function Header() {
  const { path } = useLocation();
  const current = (page: ConsolePage) =>
    page === "transcribe"
      ? path === "/"
      : path.startsWith(CONSOLE_PAGES[page]) || (page === "translate" && path.startsWith("/join/"));
  return (
    <header class="topbar">
      <a class="brand" href="/">
        <img src="/favicon.svg" alt="" width={24} height={24} />
        Voxedge
      </a>
      {apiKey.value && (
        <nav aria-label={t("nav.label")}>
          <ul class="nav">
            {NAV.map(({ page, label }) => (
              <li key={page}>
                <a href={CONSOLE_PAGES[page]} aria-current={current(page) ? "page" : undefined}>
                  {t(label)}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs">{t("nav.docs")}</a>
            </li>
          </ul>
        </nav>
      )}
      <div class="topbar-end">
        <label class="visually-hidden" for="ui-language">
          {t("nav.uiLanguage")}
        </label>
        <select
          id="ui-language"
          value={lang.value}
          onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}
        >
          {LANGS.map((code) => (
            <option key={code} value={code}>
              {code === "en" ? "English" : "Tiếng Việt"}
            </option>
          ))}
        </select>
        {apiKey.value && (
          <button type="button" class="button button-ghost" onClick={signOut}>
            {t("nav.signOut")}
          </button>
        )}
      </div>
    </header>
  );
}

function NotFound() {
  return (
    <>
      <h1>{t("notFound.title")}</h1>
      <p>
        <a href="/">{t("notFound.home")}</a>
      </p>
    </>
  );
}

/**
 * Anything a page throws while rendering (or a page's code failing to load) becomes a readable message
 * with a way out, never a blank page.
 */
class Boundary extends Component<{ children: ComponentChildren }, { error: unknown }> {
  override state = { error: null as unknown };

  static override getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidCatch(error: unknown) {
    console.error(error);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    const detail = this.state.error instanceof Error ? this.state.error.message : String(this.state.error);
    return (
      <div class="note note-error" role="alert">
        <p>{t("error.page", { detail })}</p>
        <button type="button" class="button" onClick={() => location.reload()}>
          {t("error.reload")}
        </button>
      </div>
    );
  }
}
