/** Every route only inference nodes may call: the /internal HTTP routes and the node sockets. */

export const NODE_HTTP_ROUTES: { method: string; path: string; body?: string }[] = [
  { method: "GET", path: "/internal/v1/whoami" },
  { method: "POST", path: "/internal/v1/lease", body: "{}" },
  { method: "POST", path: "/internal/v1/leases/l1/heartbeat", body: "{}" },
  { method: "POST", path: "/internal/v1/leases/l1/complete", body: "{}" },
  { method: "POST", path: "/internal/v1/leases/l1/fail", body: "{}" },
  { method: "GET", path: "/internal/v1/leases/l1/source" },
  { method: "PUT", path: "/internal/v1/leases/l1/outputs/short.mp4", body: "bytes" },
  { method: "GET", path: "/internal/v1/previews" },
  { method: "PUT", path: "/internal/v1/previews/voice.mp3", body: "bytes" },
  { method: "GET", path: "/internal/v1/translate" },
  { method: "POST", path: "/internal/v1/translate", body: "{}" },
];

export const NODE_SOCKET_ROUTES = [
  "/internal/v1/live/node",
  "/internal/v1/live/streams/live_00000000-0000-4000-8000-000000000000/not-the-secret",
];
