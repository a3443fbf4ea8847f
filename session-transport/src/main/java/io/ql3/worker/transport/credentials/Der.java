package io.ql3.worker.transport.credentials;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Just enough definite-length DER to read a key's structure and to wrap one key encoding in
 * another. Reading is bounds-checked; any malformation is a {@link
 * CredentialException.Reason#PEM_INVALID} that names the structure, never its bytes.
 */
final class Der {
  static final int INTEGER = 0x02;
  static final int OCTET_STRING = 0x04;
  static final int OID = 0x06;
  static final int SEQUENCE = 0x30;

  private final byte[] b;
  private final String what;
  private int pos;
  private int end; // of the element entered last: nothing is read beyond it

  /**
   * @param what the structure, for error messages ("PKCS#8 key")
   */
  Der(byte[] b, String what) {
    this.b = b;
    this.what = what;
    this.end = b.length;
  }

  /** Checks that the bytes are exactly one element with this tag, nothing after it. */
  static void single(byte[] b, int tag, String what) throws CredentialException {
    Der d = new Der(b, what);
    d.skip(tag);
    if (d.pos != b.length) {
      throw d.malformed();
    }
  }

  /** True when the next element has this tag (false at the end of the entered element). */
  boolean at(int tag) {
    return pos < end && (b[pos] & 0xFF) == tag;
  }

  /** True when the element entered last has been read to its end. */
  boolean atEnd() {
    return pos == end;
  }

  /** Steps into a constructed element with this tag: reading then stops at its end. */
  void enter(int tag) throws CredentialException {
    int length = header(tag);
    end = pos + length;
  }

  void skip(int tag) throws CredentialException {
    int length = header(tag); // not `pos += header(tag)`: that would add to the old pos
    pos += length;
  }

  /** The whole element (tag, length and value) with this tag, consumed. */
  byte[] element(int tag) throws CredentialException {
    int start = pos;
    int length = header(tag);
    pos += length;
    return Arrays.copyOfRange(b, start, pos);
  }

  /** The whole next element, whatever its tag, consumed. */
  byte[] element() throws CredentialException {
    if (pos >= end) {
      throw malformed();
    }
    return element(b[pos] & 0xFF);
  }

  /** One element: tag, definite length, then the parts as they are. */
  static byte[] encode(int tag, byte[]... parts) {
    int length = 0;
    for (byte[] p : parts) {
      length += p.length;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
    out.write(tag);
    if (length < 0x80) {
      out.write(length);
    } else {
      int n = length < 0x100 ? 1 : length < 0x10000 ? 2 : length < 0x1000000 ? 3 : 4;
      out.write(0x80 | n);
      for (int i = n - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Reads tag and length, leaves pos at the value, returns the length. */
  private int header(int tag) throws CredentialException {
    if (pos + 2 > end || (b[pos] & 0xFF) != tag) {
      throw malformed();
    }
    pos++;
    int first = b[pos++] & 0xFF;
    int length;
    if (first < 0x80) {
      length = first;
    } else {
      int n = first & 0x7F;
      if (n == 0 || n > 3 || pos + n > end) {
        throw malformed();
      }
      length = 0;
      for (int i = 0; i < n; i++) {
        length = (length << 8) | (b[pos++] & 0xFF);
      }
    }
    if (length > end - pos) {
      throw malformed();
    }
    return length;
  }

  CredentialException malformed() {
    return new CredentialException(
        CredentialException.Reason.PEM_INVALID,
        "private key file is not valid PEM: " + what + " structure is malformed");
  }
}
