import type { MicState } from "./use-microphone.ts";

/**
 * The large round microphone button of the translation pages: its words say what a tap does next
 * ("Start speaking" / "Stop"), and it pulses while the microphone is on.
 */
export function MicButton(props: {
  state: MicState;
  startLabel: string;
  stopLabel: string;
  onStart: () => void;
  onStop: () => void;
  disabled?: boolean;
}) {
  const on = props.state !== "off";
  return (
    <button
      type="button"
      class={`mic-button${on ? " on" : ""}`}
      onClick={on ? props.onStop : props.onStart}
      disabled={props.disabled}
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" width="28" height="28">
        <path
          fill="currentColor"
          d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11h-2z"
        />
      </svg>
      <span>{on ? props.stopLabel : props.startLabel}</span>
    </button>
  );
}
