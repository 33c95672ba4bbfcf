import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n/i18n.ts";
import type { Notice, TimelineItem } from "../translate/timeline.ts";
import { UtteranceLines } from "../translate/utterance-lines.tsx";
import { languageName } from "../ui/language-name.ts";

function noticeText(notice: Notice): string {
  switch (notice.event) {
    case "you_joined":
      return t("room.youJoined", { language: languageName(notice.language ?? "") });
    case "joined":
      return t("room.someoneJoined", {
        language: languageName(notice.language ?? ""),
        count: notice.count ?? 0,
      });
    case "left":
      return t("room.someoneLeft", { count: notice.count ?? 0 });
    case "problem":
      return notice.code === "no_engine" ? t("room.noEngine") : (notice.text ?? "");
  }
}

/**
 * The room's conversation as chat bubbles: yours on the right, the others' on the left, each with who
 * spoke in which language and the words in both languages; your interims in grey; joins and leaves
 * between them. The newest is scrolled into view.
 */
export function Bubbles({ items }: { items: readonly TimelineItem[] }) {
  const last = useRef<HTMLLIElement>(null);
  useEffect(() => last.current?.scrollIntoView({ block: "nearest" }), [items.length]);
  if (items.length === 0) return <p class="muted bubbles-empty">{t("room.empty")}</p>;
  return (
    <ol class="bubbles" aria-label={t("room.conversation")} aria-live="polite">
      {items.map((item, index) => {
        const ref = index === items.length - 1 ? last : undefined;
        if (item.kind === "notice") {
          return (
            <li key={item.id} ref={ref} class={`room-notice room-notice-${item.event}`}>
              {noticeText(item)}
            </li>
          );
        }
        return (
          <li
            key={item.id}
            ref={ref}
            class={`bubble ${item.mine ? "mine" : "theirs"} ${item.final ? "final" : "interim"}`}
          >
            <p class="bubble-who">
              {item.mine
                ? t("room.you", { language: languageName(item.language) })
                : t("room.them", { language: languageName(item.language) })}
            </p>
            <UtteranceLines utterance={item} />
          </li>
        );
      })}
    </ol>
  );
}
