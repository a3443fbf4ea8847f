package io.ql3.worker.contract;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** {@code sha256:} digests as the contract writes them. */
public final class Digests {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /**
   * Never updated, only cloned: a provider lookup per digest ({@code MessageDigest.getInstance})
   * was half of a digest's cost under the edge agent's interpreter (docs/perf/edge.md, "Sixteenth
   * pass"). Cloning an object nobody writes is safe from any thread.
   */
  private static final MessageDigest SHA_256 = sha256Instance();

  private Digests() {}

  private static MessageDigest sha256Instance() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
    }
  }

  /** {@code "sha256:"} + 64 lowercase hex characters of SHA-256 over {@code bytes}. */
  public static String sha256(byte[] bytes) {
    MessageDigest md;
    try {
      md = (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      md = sha256Instance(); // a provider whose digest cannot be cloned
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
    char[] cs = s.toCharArray(); // not charAt (docs/perf/edge.md, "Sixteenth pass")
    for (int i = 7; i < 71; i++) {
      char c = cs[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
