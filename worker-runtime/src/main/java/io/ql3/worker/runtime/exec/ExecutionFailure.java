package io.ql3.worker.runtime.exec;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Why a run did not succeed: the contract's {@code failure} object.
 *
 * @param category permanent or transient
 * @param code stable machine-readable code, {@code ^[a-z][a-z0-9_]{0,63}$}
 * @param message human-readable detail, at most {@value #MAX_MESSAGE_CHARS} code points
 */
public record ExecutionFailure(FailureCategory category, String code, String message) {

  /** The contract's bound on {@code message}, counted in Unicode code points. */
  public static final int MAX_MESSAGE_CHARS = 1024;

  private static final Pattern CODE = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");

  public ExecutionFailure {
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(message, "message");
    if (!isValidCode(code)) {
      throw new IllegalArgumentException("failure code must match ^[a-z][a-z0-9_]{0,63}$: " + code);
    }
    if (message.codePointCount(0, message.length()) > MAX_MESSAGE_CHARS) {
      throw new IllegalArgumentException("failure message over " + MAX_MESSAGE_CHARS + " characters");
    }
    if (!isScalarValues(message)) {
      throw new IllegalArgumentException("failure message holds a lone surrogate");
    }
  }

  /** A failure whose message is cut to the contract's bound (and cleaned of lone surrogates). */
  public static ExecutionFailure of(FailureCategory category, String code, String message) {
    return new ExecutionFailure(category, code, fitMessage(message));
  }

  /** A permanent failure; the message is cut to fit. */
  public static ExecutionFailure permanent(String code, String message) {
    return of(FailureCategory.PERMANENT, code, message);
  }

  /** A transient failure; the message is cut to fit. */
  public static ExecutionFailure transientFailure(String code, String message) {
    return of(FailureCategory.TRANSIENT, code, message);
  }

  /** True when {@code code} is a valid contract failure code. */
  public static boolean isValidCode(String code) {
    return code != null && CODE.matcher(code).matches();
  }

  static String fitMessage(String message) {
    String m = message == null ? "" : message;
    StringBuilder out = new StringBuilder(Math.min(m.length(), MAX_MESSAGE_CHARS * 2));
    int count = 0;
    for (int i = 0; i < m.length() && count < MAX_MESSAGE_CHARS; ) {
      int cp = m.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isSurrogate((char) cp) && Character.charCount(cp) == 1) {
        cp = 0xFFFD; // a lone surrogate is not a Unicode scalar value
      }
      out.appendCodePoint(cp);
      count++;
    }
    return out.toString();
  }

  private static boolean isScalarValues(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
