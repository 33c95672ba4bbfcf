import { useEffect } from "preact/hooks";
import { t } from "../../i18n/i18n.ts";

/**
 * A translation's result: the new note it made. The note list learns of it as soon as the card does;
 * the button chooses it for the create form.
 */
export function NewNotePreview(props: {
  noteId: string;
  onNoteMade: (noteId: string) => void;
  onOpen: (noteId: string) => void;
}) {
  const { noteId, onNoteMade } = props;
  useEffect(() => onNoteMade(noteId), [noteId]);
  return (
    <button type="button" class="button" onClick={() => props.onOpen(noteId)}>
      {t("studioKinds.preview.openNewNote")}
    </button>
  );
}
