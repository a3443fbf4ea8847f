package io.ql3.worker.transport.credentials;

import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Security;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Set;

/**
 * What this agent has already proven about a credential set, kept across restarts: a start whose
 * files are byte for byte the ones proven before skips the two signature checks of {@link
 * CredentialValidator} (the private key signs and the certificate verifies; the chain's signatures
 * verify to the trust bundle). Under the edge profile's interpreter those are P-256 operations
 * costing ~0.1 s of a start's CPU (docs/perf/edge.md, "Tenth pass").
 *
 * <p><b>Guarantee.</b> A record covers exactly the inputs it was written for — the worker id and
 * the bytes of the chain, key and trust files, with the rules that checked them (the JDK's version
 * and its certificate-path constraints), hashed together with SHA-256 — and only while the clock is
 * inside the validity window of every certificate of the chain. Anything else (no record, another
 * digest, a damaged or unknown line, the clock outside the window) is "not covered" and the full
 * check runs; the checks that do not sign (validity of the leaf, the identity) run at every load
 * either way. A rotation installs other bytes, so it is always checked in full.
 *
 * <p><b>Limits.</b> Not a security boundary: whoever can write the state directory can write a
 * record, and what that buys them is the loss of a clear local error, because the server verifies
 * the client chain and the key's signature at every handshake anyway. The record holds a digest of
 * the key file, never the key. It is replaced by rename and not forced to disk: a record lost in a
 * crash costs one full check.
 *
 * <p>Format (one line of ASCII, {@value #FILE_NAME} in the instance's state directory):
 *
 * <table>
 *   <caption>the record's fields, separated by one space</caption>
 *   <tr><th>field</th><th>value</th></tr>
 *   <tr><td>magic</td><td>{@code ql3w-credential-check}</td></tr>
 *   <tr><td>version</td><td>{@code 1}</td></tr>
 *   <tr><td>digest</td><td>64 lower-case hex digits: SHA-256 over five inputs, each as a 4-byte
 *       big-endian length and its bytes: {@link #rules()} and the worker id in UTF-8, the chain,
 *       key and trust files</td></tr>
 *   <tr><td>valid from</td><td>the latest {@code notBefore} of the chain, epoch seconds</td></tr>
 *   <tr><td>valid until</td><td>the earliest {@code notAfter} of the chain, epoch seconds</td></tr>
 * </table>
 */
public final class CredentialCheckRecord {
  /** The record's file name in the state directory. */
  public static final String FILE_NAME = "credentials.checked";

  private static final Logger LOG = System.getLogger(CredentialCheckRecord.class.getName());
  private static final String MAGIC = "ql3w-credential-check";
  private static final String VERSION = "1";
  private static final int MAX_BYTES = 256;
  private static final CredentialCheckRecord NONE = new CredentialCheckRecord(null);

  private final Path file;
  private boolean writeFailureLogged;

  private CredentialCheckRecord(Path file) {
    this.file = file;
  }

  /** No record: every load checks the signatures (the {@code check} command, tests, checkouts). */
  public static CredentialCheckRecord none() {
    return NONE;
  }

  /** The record kept in {@code file}. */
  public static CredentialCheckRecord at(Path file) {
    return new CredentialCheckRecord(file);
  }

  /**
   * The record in the instance's state directory from systemd's {@code STATE_DIRECTORY} (a list
   * separated by colons; the unit names the shared directory first and the instance's last), or
   * {@link #none()} when the agent does not run with one.
   */
  public static CredentialCheckRecord inStateDirectory(String stateDirectoryVariable) {
    if (stateDirectoryVariable == null || stateDirectoryVariable.isBlank()) {
      return none();
    }
    String[] dirs = stateDirectoryVariable.split(":");
    String last = dirs[dirs.length - 1];
    return last.isEmpty() ? none() : at(Path.of(last).resolve(FILE_NAME));
  }

  /** The record's file, or "none". */
  @Override
  public String toString() {
    return file == null ? "none" : file.toString();
  }

  /**
   * The digest a record covers: SHA-256 over the rules the check applied ({@link #rules()}) and the
   * four inputs, each preceded by its length.
   */
  static byte[] digest(String workerId, byte[] chain, byte[] key, byte[] trust) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is a mandatory JDK algorithm", e);
    }
    byte[][] parts = {
      rules().getBytes(StandardCharsets.UTF_8),
      workerId.getBytes(StandardCharsets.UTF_8),
      chain,
      key,
      trust
    };
    for (byte[] part : parts) {
      sha.update(ByteBuffer.allocate(4).putInt(part.length).array());
      sha.update(part);
    }
    return sha.digest();
  }

  /**
   * What decides the checks' verdict besides the files: this rule set's version (raise it when
   * {@link CredentialValidator} checks more), the JDK's version and its certificate-path algorithm
   * constraints. An upgrade of either, or a tightened {@code jdk.certpath.disabledAlgorithms},
   * checks unchanged files in full again.
   */
  static String rules() {
    // The properties, not Runtime.version(): parsing that loads classes and a regular expression.
    return "rules 1; java "
        + System.getProperty("java.vendor")
        + " "
        + System.getProperty("java.runtime.version")
        + "; jdk.certpath.disabledAlgorithms "
        + Security.getProperty("jdk.certpath.disabledAlgorithms");
  }

  /** Whether the signatures of the inputs with {@code digest} were proven and still hold at now. */
  boolean covers(byte[] digest, Instant now) {
    if (file == null) {
      return false;
    }
    // A regular file only, read through no link and bounded: a FIFO or a link to /dev/zero in its
    // place must not stall or exhaust the start.
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    String line;
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        return false;
      }
      line = new String(bytes, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return false; // gone, unreadable or replaced meanwhile: the full check decides
    }
    String[] f = line.endsWith("\n") ? line.substring(0, line.length() - 1).split(" ", -1) : null;
    if (f == null || f.length != 5 || !MAGIC.equals(f[0]) || !VERSION.equals(f[1])) {
      return false;
    }
    try {
      byte[] recorded = HexFormat.of().parseHex(f[2]);
      long from = Long.parseLong(f[3]);
      long until = Long.parseLong(f[4]);
      long t = now.getEpochSecond();
      return MessageDigest.isEqual(recorded, digest) && t >= from && t < until;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Records that the inputs with {@code digest} passed the full check, for the window [{@code
   * from}, {@code until}). A failure to write is logged once and otherwise ignored.
   */
  synchronized void remember(byte[] digest, Instant from, Instant until) {
    if (file == null) {
      return;
    }
    String line =
        String.join(
                " ",
                MAGIC,
                VERSION,
                HexFormat.of().formatHex(digest),
                Long.toString(from.getEpochSecond()),
                Long.toString(until.getEpochSecond()))
            + "\n";
    Path tmp = file.resolveSibling("." + FILE_NAME + ".tmp");
    try {
      Files.deleteIfExists(tmp);
      // Created here, owner-only, through no link; then renamed over the record.
      try (SeekableByteChannel ch =
          Files.newByteChannel(
              tmp,
              Set.of(
                  StandardOpenOption.CREATE_NEW,
                  StandardOpenOption.WRITE,
                  LinkOption.NOFOLLOW_LINKS),
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        ByteBuffer b = ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII));
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | UnsupportedOperationException e) {
      if (!writeFailureLogged) {
        writeFailureLogged = true;
        LOG.log(
            Level.WARNING,
            "cannot keep the credential check record {0} ({1}): every start checks the signatures"
                + " again",
            file,
            e.toString());
      }
    }
  }
}
