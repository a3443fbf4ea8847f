package io.ql3.worker.contract;

/**
 * Canonical serialization (contract section 3: RFC 8785 restricted to integers) of generic JSON
 * values, and canonicalization of JSON texts.
 */
public final class CanonicalJson {
  private CanonicalJson() {}

  /** Canonical UTF-8 bytes of {@code value}. */
  public static byte[] toBytes(JsonValue value) {
    CanonicalWriter w = new CanonicalWriter(128);
    w.value(value);
    return w.toByteArray();
  }

  /** Parses {@code text} strictly (see {@link JsonReader}) and returns its canonical bytes. */
  public static byte[] canonicalize(byte[] text) throws ContractViolation {
    return toBytes(JsonReader.parse(text));
  }

  /** {@code sha256:<hex>} digest of the canonical form of {@code value}. */
  public static String digest(JsonValue value) {
    return Digests.sha256(toBytes(value));
  }

  /** Byte length of {@code s} written as a canonical JSON string, quotes excluded. */
  public static int escapedLength(String s) {
    return CanonicalWriter.escapedLength(s);
  }
}
