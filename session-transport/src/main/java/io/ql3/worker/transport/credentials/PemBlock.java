package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * One RFC 7468 PEM block: its label, whether it carried RFC 1421 headers (legacy encrypted keys
 * have {@code Proc-Type}/{@code DEK-Info}), and its DER bytes. Text outside blocks is ignored, as
 * {@code openssl} writes it ({@code x509 -text} output, comments). The body must be strict Base64.
 */
record PemBlock(String label, boolean hasHeaders, byte[] der) {
  private static final String BEGIN = "-----BEGIN ";
  private static final String END = "-----END ";
  private static final String DASHES = "-----";

  /** Every block of {@code pem}, in order; a malformed block is a {@link Reason#PEM_INVALID}. */
  static List<PemBlock> parseAll(byte[] pem, String what) throws CredentialException {
    String text = new String(pem, StandardCharsets.US_ASCII);
    List<PemBlock> blocks = new ArrayList<>();
    String label = null;
    boolean headers = false;
    boolean inHeaders = false;
    StringBuilder body = new StringBuilder();
    for (String raw : text.split("\r?\n", -1)) {
      String line = raw.strip();
      if (label == null) {
        if (line.startsWith(BEGIN)) {
          label = labelOf(line, BEGIN, what);
          headers = false;
          inHeaders = true;
          body.setLength(0);
        }
        continue;
      }
      if (line.startsWith(END)) {
        String endLabel = labelOf(line, END, what);
        if (!endLabel.equals(label)) {
          throw invalid(what, "BEGIN " + label + " ends with END " + endLabel);
        }
        blocks.add(new PemBlock(label, headers, decode(body, label, what)));
        label = null;
        continue;
      }
      if (inHeaders && line.contains(":")) {
        headers = true; // RFC 1421 header line; continuation lines are not used by openssl
        continue;
      }
      inHeaders = false;
      body.append(line);
    }
    if (label != null) {
      throw invalid(what, "PEM block " + label + " has no END line");
    }
    return blocks;
  }

  private static String labelOf(String line, String prefix, String what)
      throws CredentialException {
    if (!line.endsWith(DASHES) || line.length() < prefix.length() + DASHES.length()) {
      throw invalid(what, "malformed PEM armor line");
    }
    return line.substring(prefix.length(), line.length() - DASHES.length());
  }

  private static byte[] decode(StringBuilder body, String label, String what)
      throws CredentialException {
    try {
      byte[] der = Base64.getDecoder().decode(body.toString());
      if (der.length == 0) {
        throw invalid(what, "PEM block " + label + " is empty");
      }
      return der;
    } catch (IllegalArgumentException e) {
      throw invalid(what, "PEM block " + label + " is not valid Base64");
    }
  }

  private static CredentialException invalid(String what, String message) {
    return new CredentialException(Reason.PEM_INVALID, what + " is not valid PEM: " + message);
  }
}
