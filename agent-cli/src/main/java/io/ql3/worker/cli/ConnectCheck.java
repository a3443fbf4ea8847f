package io.ql3.worker.cli;

import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.runtime.BuildInfo;
import io.ql3.worker.runtime.ExitCode;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.ProxySelection;
import io.ql3.worker.transport.Handshake;
import io.ql3.worker.transport.IngressClient;
import io.ql3.worker.transport.IngressEndpoint;
import io.ql3.worker.transport.TransportFailure;
import io.ql3.worker.transport.TransportSettings;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

/**
 * {@code check --connect}: one handshake through the agent's own transport (same TLS context,
 * credentials, server chain and name verification), no register and no request, then close. Each
 * way it can fail has its own exit code (README, "The ql3-worker command").
 */
final class ConnectCheck {
  /**
   * An h2 server proves it accepted our certificate by sending its SETTINGS; an http/1.1 server
   * says nothing before a request, so a TLS 1.3 refusal of our certificate (which arrives after the
   * client's side of the handshake is done) is awaited this long.
   */
  static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);

  private final AgentConfig config;
  private final CredentialProvider credentials;
  private final PrintWriter out;
  private final PrintWriter err;

  ConnectCheck(
      AgentConfig config, CredentialProvider credentials, PrintWriter out, PrintWriter err) {
    this.config = config;
    this.credentials = credentials;
    this.out = out;
    this.err = err;
  }

  int run() throws InterruptedException, io.ql3.worker.runtime.config.ConfigException {
    AgentConfig.Ingress ingress = config.ingress();
    ProxySelection route = ProxySelection.select(config, System.getenv());
    String where =
        ingress.host()
            + ":"
            + ingress.port()
            + route.proxy().map(p -> " through proxy " + p).orElse("");
    out.println(
        "proxy: "
            + route
                .proxy()
                .map(p -> p + " (HTTP CONNECT; from " + route.source() + ")")
                .orElse(route.source()));
    TransportSettings settings = route.transportSettings(ingress, BuildInfo.load().version());
    IngressClient client;
    try {
      client =
          IngressClient.open(
              new IngressEndpoint(ingress.host(), ingress.port()),
              WorkerId.of(config.workerId()),
              credentials,
              settings);
    } catch (CredentialException | ContractViolation e) {
      err.println("connect: " + e.getMessage());
      return ExitCode.CONFIG.code();
    }
    try {
      Handshake h = client.handshake(CONFIRM_WITHIN).get();
      out.println(
          "connect: ok ("
              + where
              + ", "
              + h.tlsVersion()
              + ", "
              + h.cipherSuite()
              + ", ALPN "
              + h.protocol()
              + ", server certificate verified against "
              + config.credentials().trust()
              + " for "
              + ingress.host()
              + (h.serverAccepted()
                  ? ", client certificate accepted)"
                  : "h2".equals(h.protocol())
                      ? ", but the server sent no SETTINGS within the handshake timeout: acceptance of the client"
                          + " certificate is not confirmed)"
                      : ", no refusal of the client certificate within "
                          + CONFIRM_WITHIN.toMillis()
                          + " ms: an http/1.1 server confirms it only by answering a request, and none was sent)"));
      out.println("connect: nothing was registered and no request was sent");
      return ExitCode.OK.code();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof TransportFailure f) {
        err.println("connect: " + where + ": " + explain(f));
        return exitCode(f.reason());
      }
      if (cause instanceof CredentialException ce) {
        err.println("connect: credentials: " + ce.getMessage());
        return ExitCode.NOPERM.code();
      }
      err.println("connect: " + where + ": " + cause);
      return ExitCode.SOFTWARE.code();
    } finally {
      client.close();
    }
  }

  /**
   * One exit code per way the handshake failed: unavailable, temporary, TLS/trust, our certificate
   * refused.
   */
  static int exitCode(TransportFailure.Reason reason) {
    return switch (reason) {
      case CONNECT_FAILED, RESET -> ExitCode.UNAVAILABLE.code();
      case CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT -> ExitCode.TEMPFAIL.code();
      case SERVER_UNTRUSTED,
          SERVER_CERTIFICATE_EXPIRED,
          HOSTNAME_MISMATCH,
          TLS_PROTOCOL_VERSION,
          TLS_FAILURE ->
          ExitCode.PROTOCOL.code();
      case CLIENT_CERTIFICATE_REJECTED -> ExitCode.NOPERM.code();
      default -> ExitCode.SOFTWARE.code();
    };
  }

  private String explain(TransportFailure f) {
    String detail = rootMessage(f);
    String what =
        switch (f.reason()) {
          case CONNECT_FAILED ->
              "connection refused or unreachable (is the ingress running and is ingress.url right?)";
          case RESET -> "the connection was closed during the handshake";
          case CONNECT_TIMEOUT ->
              "no TCP connection within "
                  + config.ingress().connectTimeout().toMillis()
                  + " ms (ingress.connect-timeout-ms)";
          case HANDSHAKE_TIMEOUT -> "the TLS handshake did not finish in time";
          case SERVER_UNTRUSTED ->
              "the server's certificate chain does not verify against the trust bundle "
                  + config.credentials().trust()
                  + " (credentials.trust)";
          case SERVER_CERTIFICATE_EXPIRED ->
              "the server's certificate (or its chain) is outside its validity period";
          case HOSTNAME_MISMATCH ->
              "the server's certificate does not name "
                  + config.ingress().host()
                  + " (ingress.url)";
          case TLS_PROTOCOL_VERSION ->
              "the server does not speak TLS 1.3 (the agent refuses TLS 1.2 and lower)";
          case TLS_FAILURE -> "TLS handshake failed";
          case CLIENT_CERTIFICATE_REJECTED ->
              "the server refused our client certificate "
                  + config.credentials().certificate()
                  + " (credentials.certificate)";
          default -> f.reason().name();
        };
    return detail == null ? what : what + " [" + detail + "]";
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c == t ? null : c.getMessage();
  }
}
