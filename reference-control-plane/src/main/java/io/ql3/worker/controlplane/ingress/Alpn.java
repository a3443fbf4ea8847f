package io.ql3.worker.controlplane.ingress;

import java.util.List;

/** The ALPN protocols the ingress offers. */
public enum Alpn {
  H2_AND_HTTP1(List.of("h2", "http/1.1")),
  HTTP1_ONLY(List.of("http/1.1"));

  private final List<String> protocols;

  Alpn(List<String> protocols) {
    this.protocols = protocols;
  }

  public List<String> protocols() {
    return protocols;
  }

  /** Parses the CLI form: {@code h2,http/1.1} or {@code http/1.1}. */
  public static Alpn parse(String value) {
    String v = value.replace(" ", "");
    if (v.equals("h2,http/1.1") || v.equals("http/1.1,h2")) {
      return H2_AND_HTTP1;
    }
    if (v.equals("http/1.1")) {
      return HTTP1_ONLY;
    }
    throw new IllegalArgumentException("--alpn must be 'h2,http/1.1' or 'http/1.1'");
  }
}
