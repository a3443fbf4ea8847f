package io.ql3.worker.contract;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** {@code sha256:} digests as the contract writes them. */
public final class Digests {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Digests() {}

  /** {@code "sha256:"} + 64 lowercase hex characters of SHA-256 over {@code bytes}. */
  public static String sha256(byte[] bytes) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
    }
    byte[] d = md.digest(bytes);
    char[] out = new char[7 + 64];
    "sha256:".getChars(0, 7, out, 0);
    for (int i = 0; i < d.length; i++) {
      out[7 + 2 * i] = HEX[(d[i] >> 4) & 0xF];
      out[8 + 2 * i] = HEX[d[i] & 0xF];
    }
    return new String(out);
  }

  /** True when {@code s} has the form {@code sha256:<64 lowercase hex>}. */
  public static boolean isSha256(String s) {
    if (s.length() != 71 || !s.startsWith("sha256:")) {
      return false;
    }
    for (int i = 7; i < 71; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
