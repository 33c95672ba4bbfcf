import { useState } from "preact/hooks";
import { t } from "../../i18n/i18n.ts";
import type { QuizQuestion } from "../result-data.ts";

const LETTERS = "ABCDEFGH";

/** The quiz to try: pick an option of a question, then see whether it was right, and why. */
export function QuizPreview(props: { questions: readonly QuizQuestion[] }) {
  return (
    <ol class="quiz-questions">
      {props.questions.map((question, i) => (
        <li key={i}>
          <QuizItem question={question} number={i + 1} />
        </li>
      ))}
    </ol>
  );
}

function QuizItem({ question, number }: { question: QuizQuestion; number: number }) {
  const [picked, setPicked] = useState<number | null>(null);
  const right = picked === question.answerIndex;
  const answer = `${LETTERS[question.answerIndex] ?? ""}. ${question.options[question.answerIndex] ?? ""}`;
  return (
    <fieldset class="quiz-question">
      <legend>{t("studioKinds.preview.question", { number, question: question.question })}</legend>
      <div class="stack">
        {question.options.map((option, i) => (
          <button
            key={i}
            type="button"
            class={`button button-secondary quiz-option${picked === null ? "" : i === question.answerIndex ? " right" : i === picked ? " wrong" : ""}`}
            aria-pressed={picked === i}
            disabled={picked !== null}
            onClick={() => setPicked(i)}
          >
            {`${LETTERS[i] ?? ""}. ${option}`}
          </button>
        ))}
      </div>
      {picked !== null && (
        <p class={`note${right ? "" : " note-error"}`} role="status">
          {right ? t("studioKinds.preview.right") : t("studioKinds.preview.wrong", { answer })}
          {question.explanation && ` ${question.explanation}`}
        </p>
      )}
    </fieldset>
  );
}
