/** Sizes of a task's webhook fields (docs/api.md Limits); the wire schemas and the checks share them. */
export const MAX_WEBHOOK_URL_CHARS = 2048;
export const MAX_WEBHOOK_HEADER_NAME_CHARS = 64;
export const MAX_WEBHOOK_HEADER_VALUE_CHARS = 1024;
