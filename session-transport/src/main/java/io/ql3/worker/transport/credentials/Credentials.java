package io.ql3.worker.transport.credentials;

/**
 * What one request uses: the installed TLS set and either the current token or the reason the token
 * file is unusable (then the request is not sent: a local credential error).
 */
public record Credentials(CredentialSet tls, Token token, CredentialException tokenError) {
  public Token requireToken() throws CredentialException {
    if (token == null) {
      throw tokenError;
    }
    return token;
  }
}
