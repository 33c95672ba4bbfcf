import { useState } from "preact/hooks";
import { t } from "../../i18n/i18n.ts";
import type { Flashcard } from "../result-data.ts";

/** The deck as cards to study: each shows its front; a press turns it to its back and again to the front. */
export function FlashcardsPreview(props: { cards: readonly Flashcard[] }) {
  return (
    <ul
      class="plain-list flashcards"
      aria-label={t("studioKinds.preview.cards", { count: props.cards.length })}
    >
      {props.cards.map((card, i) => (
        <li key={i}>
          <FlashcardItem card={card} />
        </li>
      ))}
    </ul>
  );
}

function FlashcardItem({ card }: { card: Flashcard }) {
  const [turned, setTurned] = useState(false);
  return (
    <button
      type="button"
      class={`flashcard${turned ? " turned" : ""}`}
      aria-pressed={turned}
      onClick={() => setTurned((now) => !now)}
    >
      <span class="muted small">{t(turned ? "studioKinds.preview.back" : "studioKinds.preview.front")}</span>
      <span class="flashcard-text">{turned ? card.back : card.front}</span>
    </button>
  );
}
