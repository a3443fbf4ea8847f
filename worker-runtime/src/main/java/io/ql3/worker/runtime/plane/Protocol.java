package io.ql3.worker.runtime.plane;

import java.util.Optional;

/** The protocol ALPN chose for the connection (contract section 1). */
public enum Protocol {
  H2("h2"),
  HTTP_1_1("http/1.1");

  private final String alpn;

  Protocol(String alpn) {
    this.alpn = alpn;
  }

  public String alpn() {
    return alpn;
  }

  /** The protocol named by an ALPN id, or empty (null: no connection yet). */
  public static Optional<Protocol> of(String alpn) {
    for (Protocol p : values()) {
      if (p.alpn.equals(alpn)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
