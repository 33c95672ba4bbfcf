/**
 * History's `cursor`: where the previous page ended (its last entry's creation time and id, the
 * list's order), opaque to clients. A cursor page is found by the index, however deep it is, where
 * `skip` makes D1 walk every row before it.
 */
export interface HistoryPosition {
  createdAt: number;
  taskId: string;
}

/** @example encodeCursor({ createdAt: 1700000000000, taskId: "6f1c…" }) // "MTcwMDAwMDAwMDAwMDo2ZjFj…" */
export function encodeCursor(position: HistoryPosition): string {
  return btoa(`${position.createdAt}:${position.taskId}`)
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** The position a cursor names; null for one this API did not make (the query schema answers 422). */
export function decodeCursor(cursor: string): HistoryPosition | null {
  let text: string;
  try {
    text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
  const match = /^(\d{1,16}):([0-9a-f-]{36})$/.exec(text);
  return match ? { createdAt: Number(match[1]), taskId: match[2] as string } : null;
}
