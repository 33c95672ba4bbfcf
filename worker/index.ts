import { app } from "./app.ts";
import { sweepUnusedUploads } from "./ingest/unused-uploads.ts";
import { consumeTasks } from "./queue-consumer.ts";
import { kickRemoteTier } from "./remote/remote-kick.ts";
import { sweepRevokedKeySpeakers } from "./speakers/revoked-key-sweep.ts";
import { finishMarkedDeletes } from "./tasks/delete.ts";
import { pruneIdempotencyKeys } from "./tasks/idempotency.ts";
import { recoverOrphanedTasks } from "./tasks/recover.ts";
import { sweepExpiredMedia } from "./tasks/retention.ts";
import { consumeWebhooks, WEBHOOK_QUEUE_NAME } from "./webhooks/consumer.ts";
import { sweepWebhooks } from "./webhooks/sweep.ts";

export { Dispatcher } from "../durable-objects/dispatcher/dispatcher.ts";
export { PoolRoot } from "../durable-objects/dispatcher/pool-root.ts";
export { HistoryCache } from "../durable-objects/history/history-cache.ts";
export { JobState } from "../durable-objects/job-state.ts";
export { LiveKeyStreams } from "../durable-objects/live/key-streams.ts";
export { LiveGate } from "../durable-objects/live/live-gate.ts";
export { LiveHub } from "../durable-objects/live/live-hub.ts";
export { LiveSession } from "../durable-objects/live/live-session.ts";
export { TranslationRoom } from "../durable-objects/rooms/translation-room.ts";
export { RemoteTier } from "./remote/remote-tier-object.ts";

export default {
  fetch: app.fetch,
  queue: (batch, env) =>
    batch.queue === WEBHOOK_QUEUE_NAME ? consumeWebhooks(batch, env) : consumeTasks(batch, env),
  scheduled: async (_controller, env, ctx) => {
    ctx.waitUntil(recoverOrphanedTasks(env));
    ctx.waitUntil(kickRemoteTier(env));
    ctx.waitUntil(pruneIdempotencyKeys(env));
    ctx.waitUntil(finishMarkedDeletes(env));
    ctx.waitUntil(sweepExpiredMedia(env));
    ctx.waitUntil(sweepUnusedUploads(env));
    ctx.waitUntil(sweepWebhooks(env));
    ctx.waitUntil(sweepRevokedKeySpeakers(env));
  },
} satisfies ExportedHandler<Env>;
