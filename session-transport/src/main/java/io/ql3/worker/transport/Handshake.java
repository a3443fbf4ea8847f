package io.ql3.worker.transport;

/**
 * What one handshake-only connection negotiated ({@link IngressClient#handshake}).
 *
 * @param protocol the ALPN protocol: {@code h2} or {@code http/1.1}
 * @param tlsVersion the TLS version, e.g. {@code TLSv1.3}
 * @param cipherSuite the negotiated cipher suite
 * @param serverAccepted true when the server proved it accepted our client certificate (on h2 its
 *     SETTINGS arrive only after that); false when it stayed silent, as an http/1.1 server does
 *     until a request, and did not refuse within the confirmation window
 */
public record Handshake(
    String protocol, String tlsVersion, String cipherSuite, boolean serverAccepted) {}
