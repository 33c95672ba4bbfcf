import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n/i18n.ts";
import type { Notice, TimelineItem } from "../translate/timeline.ts";
import { UtteranceLines } from "../translate/utterance-lines.tsx";
import { languageName, languageNameInText } from "../ui/language-name.ts";

/** A room's `error` for people: the codes the console words itself, else the server's message. */
function problemText(notice: Notice): string {
  switch (notice.code) {
    case "no_engine":
      return t("room.noEngine");
    case "tts_unavailable":
      return t("room.ttsUnavailable");
    case "tts_failed":
      return t("room.ttsFailed");
    default:
      return notice.text ?? "";
  }
}

function noticeText(notice: Notice): string {
  const count = notice.count ?? 0;
  switch (notice.event) {
    case "you_joined":
      return t("room.youJoined", { language: languageNameInText(notice.language ?? "") });
    case "joined": {
      const language = languageNameInText(notice.language ?? "");
      return notice.name
        ? t("room.namedJoined", { name: notice.name, language, count })
        : t("room.someoneJoined", { language, count });
    }
    case "left":
      return notice.name
        ? t("room.namedLeft", { name: notice.name, count })
        : t("room.someoneLeft", { count });
    case "problem":
      return problemText(notice);
    case "system": {
      const name = notice.self ? t("room.system.you") : (notice.name ?? t("room.system.someone"));
      return t(`room.system.${notice.action ?? "ended"}`, { name });
    }
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
                : item.speakerName
                  ? t("room.named", { name: item.speakerName, language: languageName(item.language) })
                  : t("room.them", { language: languageNameInText(item.language) })}
            </p>
            <UtteranceLines utterance={item} />
          </li>
        );
      })}
    </ol>
  );
}
