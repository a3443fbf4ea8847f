package io.ql3.worker.transport.credentials;

/** A credential file set that cannot be used; the message never contains key or token material. */
public final class CredentialException extends Exception {
  /** Why a credential set was refused. */
  public enum Reason {
    FILE_UNREADABLE,
    INSECURE_PERMISSIONS,
    FILE_CHANGING,
    PEM_INVALID,
    ENCRYPTED_KEY,
    KEY_MISMATCH,
    CERTIFICATE_NOT_YET_VALID,
    CERTIFICATE_EXPIRED,
    CHAIN_UNTRUSTED,
    IDENTITY_MISSING,
    IDENTITY_MISMATCH,
    TOKEN_INVALID
  }

  private final Reason reason;

  public CredentialException(Reason reason, String message) {
    super(reason + ": " + message);
    this.reason = reason;
  }

  public CredentialException(Reason reason, String message, Throwable cause) {
    super(reason + ": " + message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
