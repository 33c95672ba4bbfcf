import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client.ts";
import type { HealthResponse } from "../api/types.ts";
import { t } from "../i18n/i18n.ts";

/** Until a node has reported its model, /health is asked again this often (npm start starts it last). */
const RECHECK_MS = 15_000;

/**
 * The notice every page shows while the deployment serves a synthetic stand-in model: transcripts
 * are noise, and the one command that fixes it. Read from /health (no key needed).
 */
export function ModelNotice() {
  const [health, setHealth] = useState<HealthResponse | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const check = () => {
      api.health().then(
        (reply) => {
          if (stopped) return;
          setHealth(reply);
          if (!reply.asr_loaded) timer = setTimeout(check, RECHECK_MS);
        },
        () => {
          if (!stopped) timer = setTimeout(check, RECHECK_MS);
        },
      );
    };
    check();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);
  if (!health?.asr_synthetic) return null;
  return (
    <div class="model-notice" role="status">
      <p>
        <strong>{t("modelNotice.title")}</strong> {t("modelNotice.text", { model: health.asr_model })}
      </p>
      {health.asr_fix_command && (
        <p>
          {t("modelNotice.fix")} <code>{health.asr_fix_command}</code>
        </p>
      )}
    </div>
  );
}
