import { useEffect, useState } from "preact/hooks";
import { contentApi } from "../api/client.ts";
import type { NoteSummary } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { CHOICES_KEY, type Choices, createFields, fieldValue, readChoices } from "./create-fields.ts";
import { type Catalogs, KindField } from "./kind-field.tsx";
import { kindSpec, STUDIO_KINDS } from "./studio-kinds.ts";
import { addStudioTask } from "./studio-tasks.ts";

/** The note the form makes content of: one of the caller's, or a community note (`community`). */
export type ChosenNote = Pick<NoteSummary, "note_id" | "title" | "language"> & { community: boolean };

/** Make something of a note: any kind of the studio's table, asked with that kind's fields. */
export function CreateForm({ note }: { note: ChosenNote | null }) {
  const [catalogs, setCatalogs] = useState<Catalogs | null>(null);
  const [catalogError, setCatalogError] = useState<unknown>(null);
  const [choices, setChoices] = useState<Choices>(readChoices);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => localStorage.setItem(CHOICES_KEY, JSON.stringify(choices)), [choices]);
  useEffect(() => {
    Promise.all([contentApi.voices(), contentApi.backgrounds(), contentApi.templates()]).then(
      ([v, b, tpl]) =>
        setCatalogs({ voices: v.voices, backgrounds: b.backgrounds, templates: tpl.templates }),
      setCatalogError,
    );
  }, []);

  const spec = kindSpec(choices.kind);
  const picked = choices.values[spec.id] ?? {};
  const pick = (name: string, value: string) =>
    setChoices((current) => ({
      ...current,
      values: { ...current.values, [current.kind]: { ...current.values[current.kind], [name]: value } },
    }));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!note || !catalogs) return;
    setSending(true);
    setError(null);
    try {
      const accepted = await contentApi.create(spec.form, createFields(spec, picked, catalogs, note));
      addStudioTask({
        task_id: accepted.data.task_id,
        kind: spec.id,
        note_title: note.title,
        created_at: Date.now(),
      });
    } catch (caught) {
      setError(caught);
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="card" aria-labelledby="create-title">
      <h2 id="create-title">{t("studio.create")}</h2>
      <form class="stack" onSubmit={submit}>
        <p class={note ? "" : "note note-warn"}>
          {note ? t("studio.fromNote", { title: note.title }) : t("studio.pickNoteFirst")}
        </p>
        <fieldset class="segmented wrap">
          <legend class="visually-hidden">{t("studio.whatToMake")}</legend>
          {STUDIO_KINDS.map((option) => (
            <label key={option} class={spec.id === option ? "selected" : ""}>
              <input
                type="radio"
                name="content-kind"
                value={option}
                checked={spec.id === option}
                onChange={() => setChoices((current) => ({ ...current, kind: option }))}
              />
              {t(kindSpec(option).label)}
            </label>
          ))}
        </fieldset>
        <p class="muted small">{t(spec.description)}</p>
        <ErrorNote error={catalogError} />
        {catalogs &&
          spec.fields.map((field) => (
            <KindField
              key={`${spec.id}.${field.name}`}
              field={field}
              value={fieldValue(field, picked, catalogs, note?.language ?? null)}
              catalogs={catalogs}
              onChange={(value) => pick(field.name, value)}
            />
          ))}
        <div>
          <button type="submit" class="button" disabled={!note || !catalogs || sending}>
            {sending ? t("transcribe.sending") : t(spec.make)}
          </button>
        </div>
        <ErrorNote error={error} />
      </form>
    </section>
  );
}
