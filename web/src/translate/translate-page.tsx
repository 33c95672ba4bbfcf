import { useEffect, useState } from "preact/hooks";
import "../styles/translate.css";
import { t } from "../i18n/i18n.ts";
import { ErrorNote } from "../ui/error-note.tsx";
import { LanguagePairPicker } from "./language-pair.tsx";
import { initialPair, type LanguagePair, savePair } from "./pair.ts";
import { RoomCreator } from "./room-create.tsx";
import { SingleDevice } from "./single-device.tsx";
import { useLanguages } from "./use-languages.ts";

/**
 * /translate — speech translated as you speak: on this device (one microphone, both languages on
 * screen), or in a room with someone on another device, who joins from a QR code.
 */
export default function TranslatePage() {
  const { languages, error, retry } = useLanguages();
  const [pair, setPairState] = useState<LanguagePair | null>(null);
  useEffect(() => {
    if (languages) setPairState((current) => current ?? initialPair(languages));
  }, [languages]);
  const setPair = (next: LanguagePair) => {
    savePair(next);
    setPairState(next);
  };

  return (
    <>
      <h1>{t("translate.title")}</h1>
      {!languages && !error && <p class="muted">{t("history.loading")}</p>}
      <ErrorNote
        error={error}
        byStatus={{ 503: t("translate.unavailable") }}
        action={
          <button type="button" class="button" onClick={retry}>
            {t("translate.retry")}
          </button>
        }
      />
      {languages && pair && (
        <div class="stack">
          <SingleDevice
            pair={pair}
            picker={<LanguagePairPicker languages={languages} pair={pair} onChange={setPair} />}
          />
          <RoomCreator pair={pair} />
        </div>
      )}
    </>
  );
}
