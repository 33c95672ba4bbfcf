/** An audio result's player (an audio short; a podcast's is in its chapters preview). */
export function AudioPreview(props: { audio: string }) {
  // biome-ignore lint/a11y/useMediaCaption: an audio short has no caption track; its text is the note
  return <audio class="result-audio" controls preload="metadata" src={props.audio} />;
}
