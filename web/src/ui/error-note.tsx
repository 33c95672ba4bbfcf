import type { ComponentChildren } from "preact";
import { describeError } from "../api/errors.ts";

/** An error as a readable sentence, announced to screen readers. Renders nothing without an error. */
export function ErrorNote({ error, action }: { error: unknown; action?: ComponentChildren }) {
  if (!error) return null;
  return (
    <div class="note note-error" role="alert">
      <p>{describeError(error)}</p>
      {action}
    </div>
  );
}
