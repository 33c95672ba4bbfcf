/**
 * The fixture server's imitations of share hosts (mounted under /share/ by fixture-server.ts): what
 * Google Drive, Dropbox and OneDrive answer for a private, expired or too-large-to-scan link (a 200
 * HTML page, directly or at the end of redirects), an API's JSON error, documents served as
 * application/octet-stream, and real WAV files served the ways share hosts serve downloads.
 * `GET /share-log` lists the requests they received (method, path, Range), oldest first.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { pcmWavHeader } from "../../protocol/wav.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One second of a 440 Hz tone, 16 kHz mono 16-bit. */
function toneWav(): Buffer {
  const data = Buffer.alloc(32_000);
  for (let i = 0; i < data.length / 2; i++) {
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / 16_000) * 8000), i * 2);
  }
  return Buffer.concat([
    pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, data.length),
    data,
  ]);
}

const WAV = toneWav();

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body>${body}</body></html>`;

const DRIVE_VIRUS_SCAN = page(
  "Google Drive - Virus scan warning",
  '<form id="download-form" action="/share/usercontent/download" method="get">' +
    '<p>Google Drive can\'t scan this file for viruses.</p><input type="submit" value="Download anyway"></form>',
);
const GOOGLE_SIGN_IN = page(
  "Sign in - Google Accounts",
  "<h1>Sign in</h1><p>to continue to Google Drive</p>",
);
const DROPBOX_EXPIRED = page("Dropbox - Link expired", "<h2>This link has expired</h2>");
const MICROSOFT_SIGN_IN = `\n<!-- Copyright (C) Microsoft Corporation. -->\n${page("Sign in to your Microsoft account", "")}`;
const ONEDRIVE_ERROR = JSON.stringify({
  error: { code: "itemNotFound", message: "The resource could not be found." },
});

/** A 200 (206 for a `Range: bytes=0-N`, unless `ignoreRange`) of `body`; HEAD answers the headers. */
function serve(
  body: string | Buffer,
  headers: Record<string, string>,
  options: { headRefused?: boolean; ignoreRange?: boolean } = {},
): Handler {
  const bytes = Buffer.from(body);
  return (req, res) => {
    if (req.method === "HEAD" && options.headRefused) return void res.writeHead(405).end();
    const range = /^bytes=0-(\d+)$/.exec(req.headers.range ?? "");
    if (range?.[1] && !options.ignoreRange) {
      const part = bytes.subarray(0, Number(range[1]) + 1);
      res.writeHead(206, {
        ...headers,
        "Content-Range": `bytes 0-${part.length - 1}/${bytes.length}`,
        "Content-Length": String(part.length),
      });
      return void res.end(req.method === "HEAD" ? undefined : part);
    }
    res.writeHead(200, { ...headers, "Content-Length": String(bytes.length) });
    res.end(req.method === "HEAD" ? undefined : bytes);
  };
}

const redirect =
  (status: number, location: string): Handler =>
  (_req, res) =>
    void res.writeHead(status, { Location: location }).end();

const HTML = { "Content-Type": "text/html; charset=utf-8" };
const OCTET = { "Content-Type": "application/octet-stream" };
const ATTACHMENT = { ...OCTET, "Content-Disposition": 'attachment; filename="talk.wav"' };

/** What each share host path answers. */
const ROUTES: Record<string, Handler> = {
  // Drive, a file too large to scan: 200 with the warning page instead of the file.
  "/share/drive/uc/large": serve(DRIVE_VIRUS_SCAN, HTML),
  // Drive, a private file: a redirect to the sign-in page.
  "/share/drive/uc/private": redirect(302, "/share/accounts/ServiceLogin?continue=drive"),
  "/share/accounts/ServiceLogin": serve(GOOGLE_SIGN_IN, HTML),
  // Drive, a shared file: uc redirects (303) to drive.usercontent, which sends it as a download.
  "/share/drive/uc/shared": redirect(303, "/share/usercontent/download?id=talk&export=download"),
  "/share/usercontent/download": serve(WAV, ATTACHMENT),
  // Dropbox, an expired link: the page itself, or a redirect to it.
  "/share/dropbox/s/expired/talk.wav": serve(DROPBOX_EXPIRED, HTML),
  "/share/dropbox/scl/expired/talk.wav": redirect(302, "/share/dropbox/expired-link"),
  "/share/dropbox/expired-link": serve(DROPBOX_EXPIRED, HTML),
  // OneDrive, a link that needs a sign-in: a redirect to the login page (a comment before its doctype).
  "/share/onedrive/download": redirect(302, "/share/login.live.com/oauth20_authorize.srf?client_id=x"),
  "/share/login.live.com/oauth20_authorize.srf": serve(MICROSOFT_SIGN_IN, HTML),
  "/share/onedrive/json-error": serve(ONEDRIVE_ERROR, { "Content-Type": "application/json" }),
  // Documents that claim to be a download: only their bytes tell.
  "/share/octet/html": serve(`\n\n${GOOGLE_SIGN_IN}`, ATTACHMENT),
  "/share/octet/html-no-head": serve(DROPBOX_EXPIRED, OCTET, { headRefused: true, ignoreRange: true }),
  "/share/octet/json": serve(ONEDRIVE_ERROR, OCTET),
  "/share/octet/text": serve("Download limit exceeded for this file.\n", {}),
  // Media, as hosts send it.
  "/share/media/talk.wav": serve(WAV, { "Content-Type": "audio/wav" }),
  "/share/media/octet.wav": serve(WAV, OCTET),
  "/share/media/untyped.wav": serve(WAV, {}),
  "/share/media/no-head.wav": serve(WAV, OCTET, { headRefused: true }),
  "/share/media/no-range.wav": serve(WAV, OCTET, { ignoreRange: true }),
  // A real media type is taken at its word, whatever the bytes.
  "/share/media/clip.mp4": serve(GOOGLE_SIGN_IN, { "Content-Type": "video/mp4" }),
};

const log: { method: string; path: string; range: string | null }[] = [];

/** The handler for `pathname` under /share/, or null when it is not one of them. */
export function shareLinkRoute(pathname: string): Handler | null {
  if (pathname === "/share-log") {
    return (_req, res) =>
      void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(log));
  }
  const route = ROUTES[pathname];
  if (!route) return null;
  return (req, res) => {
    log.push({ method: req.method ?? "", path: pathname, range: req.headers.range ?? null });
    route(req, res);
  };
}
