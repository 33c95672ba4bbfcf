import type { ComponentChildren } from "preact";
import { VoxedgeApiError } from "../../../client/errors.ts";
import { describeError } from "../api/errors.ts";

/**
 * An error as a readable sentence, announced to screen readers; `byStatus` words an API status for the
 * place it happens. Renders nothing without an error.
 */
export function ErrorNote(props: {
  error: unknown;
  action?: ComponentChildren;
  byStatus?: Partial<Record<number, string>>;
}) {
  const { error, action, byStatus } = props;
  if (!error) return null;
  const specific = error instanceof VoxedgeApiError ? byStatus?.[error.status] : undefined;
  return (
    <div class="note note-error" role="alert">
      <p>{specific ?? describeError(error)}</p>
      {action}
    </div>
  );
}
