import { useEffect, useState } from "preact/hooks";
import { translationApi } from "../api/client.ts";
import type { LanguagesResponse } from "../api/types.ts";

export interface LanguagesState {
  languages: LanguagesResponse | null;
  /** Why the list could not be read (503: no node with a translation engine). */
  error: unknown;
  retry: () => void;
}

/**
 * The deployment's translation languages (GET /api/v1/languages, no key needed), read when the page
 * opens; `retry` reads them again.
 *
 * @example const { languages, error, retry } = useLanguages();
 */
export function useLanguages(): LanguagesState {
  const [languages, setLanguages] = useState<LanguagesResponse | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setError(null);
    translationApi.languages(abort.signal).then(setLanguages, (caught: unknown) => {
      if (!abort.signal.aborted) setError(caught);
    });
    return () => abort.abort();
  }, [attempt]);
  return { languages, error, retry: () => setAttempt((n) => n + 1) };
}
