package io.ql3.worker.transport.credentials;

import java.util.regex.Pattern;

/** A bearer token that matched the contract's token rule. {@link #toString()} never shows it. */
public final class Token {
  private static final Pattern RULE = Pattern.compile("^[A-Za-z0-9._~+/=-]{16,4096}$");
  private final String value;

  private Token(String value) {
    this.value = value;
  }

  /** Trims the file content and checks the contract rule {@code ^[A-Za-z0-9._~+/=-]{16,4096}$}. */
  public static Token parse(String fileContent) throws CredentialException {
    String trimmed = fileContent.strip();
    if (!RULE.matcher(trimmed).matches()) {
      throw new CredentialException(
          CredentialException.Reason.TOKEN_INVALID,
          "token file content does not match ^[A-Za-z0-9._~+/=-]{16,4096}$ (length "
              + trimmed.length()
              + ")");
    }
    return new Token(trimmed);
  }

  /** The value for the {@code authorization: Bearer} header; callers must not log it. */
  public String bearerValue() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Token t && t.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return "Token[redacted, length=" + value.length() + "]";
  }
}
