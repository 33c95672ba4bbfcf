/**
 * What a short says. Its title is spoken first, over the title card, and then its body, unless the
 * body already opens with the title's words: a title the Worker cut from the note's first sentence
 * ("Photosynthesis is the process by which green plants use sunlight…") or a note that opens by
 * naming its subject. Said twice, the opening sounded like a stutter; it is said once, as the
 * body's opening, and the title card is up while those words are spoken.
 */
import { asSentence, splitWords } from "./text.ts";
import { titleWordsOpening } from "./title-opening.ts";

export interface ShortNarration {
  /** The words to synthesize. */
  text: string;
  /** How many of its words (splitWords) the title card covers; the captions start after them. */
  titleWordCount: number;
}

/**
 * The narration of a short with `title` and `body` (the script).
 *
 * @example
 * shortNarration("Rivers", "Rivers carry water.") // { text: "Rivers carry water.", titleWordCount: 1 }
 * shortNarration("Rivers", "The Mekong floods.") // { text: "Rivers. The Mekong floods.", titleWordCount: 1 }
 */
export function shortNarration(title: string, body: string): ShortNarration {
  const repeated = titleWordsOpening(title, body);
  if (repeated > 0) return { text: asSentence(body), titleWordCount: repeated };
  const spokenTitle = asSentence(title);
  return { text: `${spokenTitle} ${asSentence(body)}`, titleWordCount: splitWords(spokenTitle).length };
}
