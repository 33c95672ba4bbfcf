import { useState } from "preact/hooks";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "./error-note.tsx";

/**
 * Deletes something for good after a second, confirming press (leaving the button cancels the
 * confirmation). A failure is shown beside it; `onDeleted` runs once the server said yes.
 */
export function DeleteButton(props: { label: string; onDelete: () => Promise<void>; onDeleted: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const press = async () => {
    if (!confirming) return setConfirming(true);
    setError(null);
    setBusy(true);
    try {
      await props.onDelete();
      props.onDeleted();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class={`button ${confirming ? "button-danger" : "button-ghost"}`}
        onClick={press}
        onBlur={() => setConfirming(false)}
        disabled={busy}
        aria-label={confirming ? t("task.confirmDelete") : props.label}
      >
        {confirming ? t("task.confirmDelete") : t("task.delete")}
      </button>
      <ErrorNote error={error} />
    </>
  );
}
