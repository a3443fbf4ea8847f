package io.ql3.worker.transport.credentials;

import io.ql3.worker.transport.credentials.CredentialException.Reason;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The single owner of credential state. Before each handshake and each request the transport calls
 * {@link #current()}, which stats the four files (no read) and re-reads only when a stamp changed.
 * A changed file is read only once it has been quiet for the settle window (by its mtime against
 * the injected clock) and only if a re-stat after the read shows no writer raced it. A TLS set is
 * installed only when it is complete and consistent; otherwise the previous set stays and the
 * failure is logged once per change. Token changes apply to the next request.
 */
public final class CredentialProvider {
  private static final Logger LOG = System.getLogger(CredentialProvider.class.getName());

  /**
   * Tunables with safe defaults.
   *
   * @param settleWindow a changed file is read only once unmodified for this long (no half-written
   *     reads)
   * @param expiryWarning warn when the leaf expires sooner than this
   * @param checkInterval a stat result is reused for this long (by the injected clock), so the
   *     per-request check is a clock read; zero stats on every call
   */
  public record Settings(Duration settleWindow, Duration expiryWarning, Duration checkInterval) {
    public static Settings defaults() {
      return new Settings(Duration.ofSeconds(1), Duration.ofDays(7), Duration.ofMillis(250));
    }

    public Settings withCheckInterval(Duration d) {
      return new Settings(settleWindow, expiryWarning, d);
    }
  }

  private record TlsState(CredentialSet set, List<FileStamp> stamps) {}

  private record TokenState(Token token, CredentialException error, FileStamp stamp) {}

  private final CredentialFiles files;
  private final String workerId;
  private final Clock clock;

  /** Who this process is, for the permission rules (null where it cannot be told). */
  private final FilePermissions.Identity owner = FilePermissions.Identity.current();

  private final Settings settings;
  private final CredentialValidator validator;
  private volatile TlsState tls;
  private volatile TokenState token;
  private List<FileStamp> refusedTlsStamps; // guarded by this: the refused candidate, logged once
  private final SettleWatch tlsSettling; // guarded by this
  private final SettleWatch tokenSettling; // guarded by this
  private final MissingFiles unreadable;
  private final MissingFiles unreadableToken;
  private volatile long nextExpiryWarningMillis;
  private volatile CredentialSet previous;
  private volatile Credentials cached;
  private volatile long checkedAtMillis;

  private CredentialProvider(
      CredentialFiles files,
      String workerId,
      Clock clock,
      Settings settings,
      CredentialCheckRecord record) {
    this.files = files;
    this.workerId = workerId;
    this.clock = clock;
    this.settings = settings;
    this.validator = new CredentialValidator(clock, workerId, record);
    this.tlsSettling = new SettleWatch(settings.settleWindow());
    this.tokenSettling = new SettleWatch(settings.settleWindow());
    this.unreadable = new MissingFiles(settings.settleWindow(), "the installed set");
    this.unreadableToken = new MissingFiles(settings.settleWindow(), "the installed token");
  }

  /**
   * {@link #load(CredentialFiles, String, Clock, Settings, CredentialCheckRecord)} without a
   * record.
   */
  public static CredentialProvider load(
      CredentialFiles files, String workerId, Clock clock, Settings settings)
      throws CredentialException {
    return load(files, workerId, clock, settings, CredentialCheckRecord.none());
  }

  /**
   * Reads and validates all four files once; any problem is a start-up error (for an identity
   * mismatch the message names both the configured workerId and the certificate identity). Files
   * that {@code record} shows were proven before skip the signature checks (see {@link
   * CredentialCheckRecord}); every set that passes the full check is recorded there.
   */
  public static CredentialProvider load(
      CredentialFiles files,
      String workerId,
      Clock clock,
      Settings settings,
      CredentialCheckRecord record)
      throws CredentialException {
    Objects.requireNonNull(workerId, "workerId");
    CredentialProvider p = new CredentialProvider(files, workerId, clock, settings, record);
    List<FileStamp> before = p.statTls();
    CredentialSet set = p.readTls(1);
    List<FileStamp> after = p.statTls();
    if (!before.equals(after)) {
      throw new CredentialException(
          Reason.FILE_CHANGING, "credential files changed while being read; retry");
    }
    p.tls = new TlsState(set, after);
    FileStamp ts = p.statToken();
    Token t = p.readToken();
    if (!ts.equals(p.statToken())) {
      throw new CredentialException(
          Reason.FILE_CHANGING, "token file changed while being read; retry");
    }
    p.token = new TokenState(t, null, ts);
    LOG.log(
        Level.INFO,
        "credentials installed: {0}{1}",
        set,
        p.signatureChecks() == 0
            ? " (signatures as verified at an earlier start: " + record + ")"
            : "");
    p.warnExpiry(set);
    return p;
  }

  /**
   * The credentials to use now. Cheap when nothing changed: a clock read while the last stat is
   * younger than the check interval, else four stats and no read.
   */
  public Credentials current() {
    long now = clock.millis();
    Credentials c = cached;
    long age = now - checkedAtMillis;
    if (c != null && age >= 0 && age < settings.checkInterval().toMillis()) {
      return c;
    }
    c = check();
    cached = c;
    checkedAtMillis = now;
    return c;
  }

  /** Stats the files now, ignoring the check interval (before each TLS handshake). */
  public Credentials checkNow() {
    Credentials c = check();
    cached = c;
    checkedAtMillis = clock.millis();
    return c;
  }

  private Credentials check() {
    TlsState t = tls;
    List<FileStamp> stamps;
    try {
      stamps = statTls();
      unreadable.cleared();
    } catch (CredentialException e) {
      stamps = null; // a file missing mid-swap: keep the installed set
      unreadable.seen(e.getMessage(), clock.millis());
    }
    if (stamps != null && !stamps.equals(t.stamps)) {
      t = reloadTls(stamps);
    }
    TokenState k = token;
    try {
      FileStamp s = statToken();
      if (!s.equals(k.stamp)) {
        k = reloadToken(s);
      }
      unreadableToken.cleared();
    } catch (CredentialException e) {
      // keep the installed token while the file is briefly absent
      unreadableToken.seen(e.getMessage(), clock.millis());
    }
    if (clock.millis() >= nextExpiryWarningMillis) {
      warnExpiry(t.set);
    }
    return new Credentials(t.set, k.token, k.error);
  }

  /** The installed TLS set after a cheap change check. */
  public CredentialSet tls() {
    return current().tls();
  }

  /**
   * The generation installed before the current one, while its leaf is still valid: the transport
   * falls back to it when the server rejects the current one.
   */
  public java.util.Optional<CredentialSet> previousStillValid() {
    CredentialSet p = previous;
    if (p == null) {
      return java.util.Optional.empty();
    }
    java.time.Instant now = clock.instant();
    boolean valid =
        !now.isBefore(p.chain().get(0).getNotBefore().toInstant()) && now.isBefore(p.notAfter());
    return valid ? java.util.Optional.of(p) : java.util.Optional.empty();
  }

  /** How many credential sets had their signatures verified (not covered by the record). */
  int signatureChecks() {
    return validator.signatureChecks();
  }

  /** Days until the installed leaf certificate expires (for status and metrics). */
  public long daysToExpiry() {
    return tls.set.daysToExpiry(clock);
  }

  private synchronized TlsState reloadTls(List<FileStamp> stamps) {
    TlsState t = tls;
    if (stamps.equals(t.stamps)
        || stamps.equals(refusedTlsStamps)
        || !tlsSettling.settled(stamps, clock.millis())) {
      return t;
    }
    CredentialSet candidate;
    try {
      candidate = readTls(t.set.generation() + 1);
      List<FileStamp> after = statTls();
      if (!after.equals(stamps)) {
        return t; // a writer raced the read: discard, look again on the next check
      }
    } catch (CredentialException e) {
      try {
        if (!statTls().equals(stamps)) {
          return t; // changed again while reading: not a verdict on this version
        }
      } catch (CredentialException ignored) {
        return t;
      }
      refusedTlsStamps = stamps;
      LOG.log(
          Level.ERROR,
          "new credential files refused, keeping generation {0}: {1}",
          t.set.generation(),
          e.getMessage());
      return t;
    }
    TlsState next = new TlsState(candidate, stamps);
    previous = t.set;
    tls = next;
    refusedTlsStamps = null;
    LOG.log(Level.INFO, "credentials rotated: {0}", candidate);
    warnExpiry(candidate);
    return next;
  }

  private synchronized TokenState reloadToken(FileStamp stamp) {
    TokenState k = token;
    if (stamp.equals(k.stamp) || !tokenSettling.settled(List.of(stamp), clock.millis())) {
      return k;
    }
    TokenState next;
    try {
      Token t = readToken();
      if (!statToken().equals(stamp)) {
        return k;
      }
      next = new TokenState(t, null, stamp);
      LOG.log(Level.INFO, "token rotated");
    } catch (CredentialException e) {
      // The contract: the token IS the file content; an invalid file means no request is sent.
      next = new TokenState(null, e, stamp);
      LOG.log(
          Level.ERROR,
          "token file refused; requests are not sent until it is fixed: {0}",
          e.getMessage());
    }
    token = next;
    return next;
  }

  private CredentialSet readTls(long generation) throws CredentialException {
    FilePermissions.checkSecret(files.privateKey(), "private key file", owner);
    FilePermissions.checkNotWritableByOthers(
        files.certificateChain(), "certificate chain file", owner);
    FilePermissions.checkNotWritableByOthers(files.trustBundle(), "trust bundle file", owner);
    byte[] chainPem = read(files.certificateChain());
    byte[] keyPem = read(files.privateKey());
    byte[] trustPem = read(files.trustBundle());
    try {
      List<X509Certificate> chain = PemReader.certificates(chainPem, "certificate chain file");
      List<X509Certificate> trust = PemReader.certificates(trustPem, "trust bundle file");
      PrivateKey key = PemReader.privateKey(keyPem);
      byte[] digest = CredentialCheckRecord.digest(workerId, chainPem, keyPem, trustPem);
      String identity = validator.validate(chain, key, trust, digest);
      return new CredentialSet(generation, chain, key, trust, identity);
    } catch (GeneralSecurityException e) {
      throw new CredentialException(
          Reason.CHAIN_UNTRUSTED, "cannot build the trust manager: " + e.getMessage(), e);
    } finally {
      Arrays.fill(keyPem, (byte) 0);
    }
  }

  private Token readToken() throws CredentialException {
    FilePermissions.checkSecret(files.token(), "token file", owner);
    byte[] raw = read(files.token());
    try {
      Token t = Token.parse(new String(raw, StandardCharsets.UTF_8));
      return t;
    } finally {
      Arrays.fill(raw, (byte) 0);
    }
  }

  private List<FileStamp> statTls() throws CredentialException {
    return List.of(
        stat(files.certificateChain()), stat(files.privateKey()), stat(files.trustBundle()));
  }

  private FileStamp statToken() throws CredentialException {
    return stat(files.token());
  }

  private static FileStamp stat(Path p) throws CredentialException {
    try {
      return FileStamp.of(p);
    } catch (IOException e) {
      throw new CredentialException(Reason.FILE_UNREADABLE, p + ": " + e.getMessage(), e);
    }
  }

  private static byte[] read(Path p) throws CredentialException {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new CredentialException(Reason.FILE_UNREADABLE, p + ": " + e.getMessage(), e);
    }
  }

  private void warnExpiry(CredentialSet set) {
    long days = set.daysToExpiry(clock);
    if (days < settings.expiryWarning().toDays()) {
      LOG.log(Level.WARNING, "client certificate expires in {0} days: {1}", days, set);
    }
    nextExpiryWarningMillis = clock.millis() + Duration.ofDays(1).toMillis();
  }
}
