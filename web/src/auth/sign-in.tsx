import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client.ts";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { localDevKey, signIn } from "./key-store.ts";

/**
 * Asks for an API key once. The key is checked against the API before it is kept; under `npm start`
 * on this machine the local dev key is filled in.
 */
export function SignIn() {
  const [key, setKey] = useState("");
  const [prefilled, setPrefilled] = useState(false);
  const [reveal, setReveal] = useState(false);
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    void localDevKey().then((devKey) => {
      if (!devKey) return;
      setKey((current) => current || devKey);
      setPrefilled(true);
    });
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) return;
    setChecking(true);
    setError(null);
    try {
      await api.checkKey(candidate);
      signIn(candidate);
    } catch (caught) {
      setError(caught);
    } finally {
      setChecking(false);
    }
  };

  const keyInput = {
    id: "api-key",
    class: "code",
    autoComplete: "off",
    spellcheck: false,
    required: true,
    value: key,
    onInput: (event: Event) => setKey((event.target as HTMLInputElement).value),
  };
  return (
    <div class="sign-in">
      <h1>{t("signIn.title")}</h1>
      <form class="card stack" onSubmit={submit}>
        <p>{t("signIn.intro")}</p>
        <div class="field">
          <label for="api-key">{t("signIn.key")}</label>
          <div class="row">
            {/* Two elements rather than one with a changing type: each is a valid <input> of its kind. */}
            {reveal ? <input type="text" {...keyInput} /> : <input type="password" {...keyInput} />}
            <button
              type="button"
              class="button button-secondary"
              aria-pressed={reveal}
              onClick={() => setReveal(!reveal)}
            >
              {reveal ? t("signIn.hide") : t("signIn.show")}
            </button>
          </div>
        </div>
        <button type="submit" class="button" disabled={checking || !key.trim()}>
          {checking ? t("signIn.checking") : t("signIn.submit")}
        </button>
        {/* Below the button: the hint arrives after the form is shown, and above it would move the button
            from under a pointer pressing it (the press then lands off the button and is lost). */}
        {prefilled && <p class="muted small">{t("signIn.devKey")}</p>}
        <ErrorNote error={error} byStatus={{ 401: t("signIn.refused") }} />
        <p class="muted small">
          {t("signIn.help")} <a href="/docs">{t("nav.docs")}</a>
        </p>
      </form>
    </div>
  );
}
