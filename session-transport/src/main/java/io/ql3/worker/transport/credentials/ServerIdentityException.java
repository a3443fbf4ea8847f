package io.ql3.worker.transport.credentials;

import java.security.cert.CertificateException;

/**
 * The server's certificate chains to the trust bundle but does not name the configured endpoint
 * (contract section 1); the rules are {@link ServerNames}'.
 */
public final class ServerIdentityException extends CertificateException {
  private static final long serialVersionUID = 1L;

  ServerIdentityException(String message) {
    super(message);
  }
}
