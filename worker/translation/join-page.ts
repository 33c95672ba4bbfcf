import { ApiError } from "../errors.ts";
import { sessionDetails } from "./sessions.ts";

/**
 * What GET /join/{conversation_id} shows. The join link is opened by browsers, but also by link
 * previews, curl and QR scanner apps, none of which send a browser's navigation headers: every GET
 * gets HTML, the console page. A live room gets it as is (the console joins it); an unknown or expired
 * one gets it with 404 and "this conversation has ended" written into it; a session store that cannot
 * be reached, 503 and a "try again". Nothing of the path is echoed into the HTML.
 */
export type JoinPage = { kind: "console" } | { kind: "ended" } | { kind: "unavailable" };

/** Whether the room behind a join link can be joined now. */
export async function joinPageFor(env: Env, conversationId: string): Promise<JoinPage> {
  try {
    await sessionDetails(env, conversationId);
    return { kind: "console" };
  } catch (error) {
    if (error instanceof ApiError && error.code === "not_found") return { kind: "ended" };
    if (error instanceof ApiError && error.code === "service_unavailable") return { kind: "unavailable" };
    throw error;
  }
}

const PAGES = {
  ended: {
    status: 404,
    title: "This conversation has ended",
    text: "The conversation behind this link has ended or never existed. Ask for a new link or QR code.",
  },
  unavailable: {
    status: 503,
    title: "This conversation cannot be reached right now",
    text: "The conversation service is unavailable for a moment. Reload this page to try again.",
  },
} as const;

/**
 * The console page for a room that cannot be joined, with the right status and its words already in
 * the HTML (title and the app's root), so a client that runs no script (curl, a link preview) reads
 * them; the console, once loaded, draws its own localised "ended" page over them.
 */
export function joinNoticePage(consolePage: Response, kind: keyof typeof PAGES): Response {
  const { status, title, text } = PAGES[kind];
  const page = new HTMLRewriter()
    .on("title", { element: (title_) => void title_.setInnerContent(`${title} · Voxedge`) })
    .on("div#app", {
      element: (root) => void root.setInnerContent(`<h1>${title}</h1><p>${text}</p>`, { html: true }),
    })
    .transform(consolePage);
  const response = new Response(page.body, { status, headers: page.headers });
  response.headers.delete("ETag"); // the asset's tag names the unmodified file
  response.headers.set("Cache-Control", "no-store");
  return response;
}
