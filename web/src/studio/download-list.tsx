import type { ContentFileLink } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";
import { formatBytes } from "../ui/format.ts";
import { downloadList } from "./downloads.ts";

/** Every file a finished task made, a link each, named for people, with its size. */
export function DownloadList(props: { files: readonly ContentFileLink[]; baseName: string }) {
  const items = downloadList(props.files, props.baseName);
  if (items.length === 0) return null;
  return (
    <nav aria-label={t("studioKinds.downloads")}>
      <h4 class="small">{t("studioKinds.downloads")}</h4>
      <ul class="plain-list downloads">
        {items.map((item) => (
          <li key={item.href}>
            <a href={item.href} download={item.filename}>
              {item.label ? t(item.label) : item.role}
            </a>{" "}
            <span class="muted small">{formatBytes(item.bytes)}</span>
          </li>
        ))}
      </ul>
    </nav>
  );
}
