package io.ql3.worker.transport;

import java.util.OptionalLong;

/**
 * A complete HTTP answer whose body stayed within its cap.
 *
 * @param status HTTP status
 * @param retryAfterSeconds {@code retry-after} as delta seconds, when present and well formed
 * @param body the body bytes (at most the operation's response cap)
 * @param protocol {@code h2} or {@code http/1.1}
 */
public record RawResponse(
    int status, OptionalLong retryAfterSeconds, byte[] body, String protocol) {
  static OptionalLong parseRetryAfter(CharSequence value) {
    if (value == null) {
      return OptionalLong.empty();
    }
    String v = value.toString().trim();
    if (v.isEmpty() || v.length() > 9 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalLong.empty(); // HTTP-date form is not used by the contract: ignored
    }
    return OptionalLong.of(Long.parseLong(v));
  }
}
