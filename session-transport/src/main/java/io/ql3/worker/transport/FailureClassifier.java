package io.ql3.worker.transport;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.ql3.worker.transport.credentials.ServerIdentityException;
import java.net.ConnectException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * Maps a connect/TLS/IO throwable to a {@link TransportFailure.Reason}; the one place that reads
 * JDK messages.
 */
final class FailureClassifier {
  private FailureClassifier() {}

  /**
   * TLS alerts by which a server says it refuses our client certificate (TLS 1.3 sends them after
   * "success").
   */
  private static final String[] CLIENT_CERT_ALERTS = {
    "certificate_unknown", "bad_certificate", "certificate_expired", "certificate_required",
    "certificate_revoked", "unknown_ca", "access_denied", "unsupported_certificate"
  };

  static TransportFailure.Reason classify(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectTimeoutException) {
        return TransportFailure.Reason.CONNECT_TIMEOUT;
      }
      if (c instanceof SslHandshakeTimeoutException) {
        return TransportFailure.Reason.HANDSHAKE_TIMEOUT;
      }
      if (c instanceof ConnectException) {
        return TransportFailure.Reason.CONNECT_FAILED;
      }
    }
    SSLException ssl = find(t, SSLException.class);
    if (ssl == null) {
      return TransportFailure.Reason.RESET;
    }
    if (find(t, ServerIdentityException.class) != null) {
      return TransportFailure.Reason.HOSTNAME_MISMATCH;
    }
    if (find(t, CertificateExpiredException.class) != null
        || find(t, CertificateNotYetValidException.class) != null) {
      return TransportFailure.Reason.SERVER_CERTIFICATE_EXPIRED;
    }
    CertPathValidatorException cpve = find(t, CertPathValidatorException.class);
    if (cpve != null && cpve.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
      return TransportFailure.Reason.SERVER_CERTIFICATE_EXPIRED;
    }
    String all = messages(t);
    if (all.contains("received fatal alert")) {
      for (String alert : CLIENT_CERT_ALERTS) {
        if (all.contains(alert)) {
          return TransportFailure.Reason.CLIENT_CERTIFICATE_REJECTED;
        }
      }
      if (all.contains("protocol_version")) {
        return TransportFailure.Reason.TLS_PROTOCOL_VERSION;
      }
    }
    if (all.contains("protocol_version")
        || all.contains("no appropriate protocol")
        || all.contains("protocol is disabled or cipher suites are inappropriate")) {
      return TransportFailure.Reason.TLS_PROTOCOL_VERSION;
    }
    if (cpve != null
        || all.contains("pkix path")
        || all.contains("unable to find valid certification path")) {
      return TransportFailure.Reason.SERVER_UNTRUSTED;
    }
    return TransportFailure.Reason.TLS_FAILURE;
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
      for (Throwable s : c.getSuppressed()) {
        if (type.isInstance(s)) {
          return type.cast(s);
        }
      }
    }
    return null;
  }

  private static String messages(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null) {
        b.append(c.getMessage()).append('\n');
      }
    }
    return b.toString().toLowerCase(Locale.ROOT);
  }
}
