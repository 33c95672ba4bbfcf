import { app } from "./app.ts";
import { consumeTasks } from "./queue-consumer.ts";

export { JobState } from "../durable-objects/job-state.ts";
export { Dispatcher } from "../durable-objects/dispatcher/dispatcher.ts";

export default {
  fetch: app.fetch,
  queue: consumeTasks,
} satisfies ExportedHandler<Env>;
