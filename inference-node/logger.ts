import pino from "pino";

/** Structured JSON logs; every task line carries `task_id`. */
export const logger = pino({
  name: "inference-node",
  level: process.env.VOXEDGE_LOG_LEVEL ?? "info",
  base: { pid: process.pid },
});
export type Logger = typeof logger;
