package io.ql3.worker.runtime.exec;

import io.ql3.worker.contract.Failure;
import io.ql3.worker.contract.FailureCategory;

/** Builds contract {@link Failure}s whose message is cut to the contract's 1024 characters. */
final class Failures {

  private Failures() {}

  static Failure of(FailureCategory category, String code, String message) {
    return new Failure(category, code, fit(message));
  }

  static Failure permanent(String code, String message) {
    return of(FailureCategory.PERMANENT, code, message);
  }

  static Failure transientFailure(String code, String message) {
    return of(FailureCategory.TRANSIENT, code, message);
  }

  /** At most {@link Failure#MAX_MESSAGE_CHARS} code points; lone surrogates become U+FFFD. */
  static String fit(String message) {
    String m = message == null ? "" : message;
    StringBuilder out = new StringBuilder(Math.min(m.length(), 2 * Failure.MAX_MESSAGE_CHARS));
    int count = 0;
    for (int i = 0; i < m.length() && count < Failure.MAX_MESSAGE_CHARS; count++) {
      int cp = m.codePointAt(i);
      i += Character.charCount(cp);
      out.appendCodePoint(Character.isSurrogate((char) cp) && cp < 0x10000 ? 0xFFFD : cp);
    }
    return out.toString();
  }
}
