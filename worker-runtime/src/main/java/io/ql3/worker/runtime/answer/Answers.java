package io.ql3.worker.runtime.answer;

import io.ql3.worker.contract.Answer;
import io.ql3.worker.contract.AnswerKind;
import java.util.concurrent.CompletableFuture;

/**
 * Reading a finished answer future: an exceptionally completed one is a handled outcome, never a
 * throw.
 */
public final class Answers {
  private Answers() {}

  /**
   * The answer of a done future. One that failed (a bug or an error thrown while the answer was
   * read, such as an OutOfMemoryError) is {@link AnswerKind#OUTCOME_UNKNOWN}: the server may have
   * acted, so the caller keeps the bytes.
   */
  public static <T> Answer<T> of(CompletableFuture<Answer<T>> done) {
    if (!done.isDone()) {
      throw new IllegalStateException("not done");
    }
    try {
      Answer<T> a = done.getNow(null);
      return a != null
          ? a
          : Answer.refused(AnswerKind.OUTCOME_UNKNOWN, "the answer future completed empty");
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return Answer.refused(AnswerKind.OUTCOME_UNKNOWN, "the answer future failed: " + cause);
    }
  }
}
