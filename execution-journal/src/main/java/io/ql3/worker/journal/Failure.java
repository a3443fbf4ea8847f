package io.ql3.worker.journal;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A structured failure: category, a stable code and a bounded message.
 *
 * <p>The journal's own copy of the contract's {@code Failure} (the journal does not depend on the
 * contract): the same code pattern and message bound, which worker-runtime's {@code
 * JournalContractParityTest} pins equal to the contract's.
 */
public record Failure(FailureCategory category, String code, String message) {
  /** Equal to the contract's {@code Failure.CODE_PATTERN}. */
  public static final String CODE_PATTERN = "^[a-z][a-z0-9_]{0,63}$";

  /** Equal to the contract's {@code Failure.MAX_MESSAGE_CHARS}. */
  public static final int MAX_MESSAGE_CHARS = 1024;

  private static final Pattern CODE = Pattern.compile(CODE_PATTERN);

  public Failure {
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    if (!CODE.matcher(code).matches()) {
      throw new IllegalArgumentException("failure code must match " + CODE + ": " + code);
    }
    if (message.codePointCount(0, message.length()) > MAX_MESSAGE_CHARS) {
      throw new IllegalArgumentException(
          "failure message over " + MAX_MESSAGE_CHARS + " characters");
    }
  }
}
