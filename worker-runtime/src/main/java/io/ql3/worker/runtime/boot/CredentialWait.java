package io.ql3.worker.runtime.boot;

import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Start-up with credentials that are not usable yet (not provisioned, unreadable, a certificate not
 * yet valid because the clock is still wrong, expired): {@code run} waits instead of exiting, so a
 * board that boots before its clock or its provisioning does not burn its restart budget and stay
 * failed. Nothing is registered and nothing pulled meanwhile (the agent has no connection yet).
 *
 * <p>It loads again as soon as one of the four files changes (stat fingerprint: existence, size,
 * mtime, inode, checked every {@link #POLL}), on request (SIGHUP) and at least every {@link
 * #RECHECK} (a clock that was corrected changes no file). A configured identity that differs from
 * the certificate's is not waited on: that is a configuration error (the caller exits {@link
 * io.ql3.worker.runtime.ExitCode#CONFIG}).
 */
public final class CredentialWait {
  /** Load again at least this often. */
  public static final Duration RECHECK = Duration.ofSeconds(10);

  /** How often the files' fingerprints are compared. */
  static final Duration POLL = Duration.ofMillis(250);

  /** Loads the credentials once. */
  @FunctionalInterface
  public interface Loader {
    CredentialProvider load() throws CredentialException;
  }

  /** Told about each failed load (the agent logs it, writes its status, tells systemd). */
  @FunctionalInterface
  public interface Waiting {
    void waiting(CredentialException why);
  }

  private final Loader loader;
  private final CredentialFiles files;
  private final Ticker ticker;
  private final Waiting waiting;
  private final BooleanSupplier stop;
  private final BooleanSupplier recheckNow;

  /**
   * @param stop true once the agent should stop instead of waiting on
   * @param recheckNow true (once) when an operator asked for a load now (SIGHUP)
   */
  public CredentialWait(
      Loader loader,
      CredentialFiles files,
      Ticker ticker,
      Waiting waiting,
      BooleanSupplier stop,
      BooleanSupplier recheckNow) {
    this.loader = loader;
    this.files = files;
    this.ticker = ticker;
    this.waiting = waiting;
    this.stop = stop;
    this.recheckNow = recheckNow;
  }

  /** True for the problems the agent waits out; false for those it must refuse at once. */
  public static boolean waitable(CredentialException e) {
    return e.reason() != CredentialException.Reason.IDENTITY_MISMATCH;
  }

  /**
   * The loaded credentials, or empty when {@code stop} became true first.
   *
   * @throws CredentialException a problem that is not {@link #waitable}
   */
  public Optional<CredentialProvider> await() throws CredentialException, InterruptedException {
    while (true) {
      List<Object> seen = fingerprint();
      try {
        return Optional.of(loader.load());
      } catch (CredentialException e) {
        if (!waitable(e)) {
          throw e;
        }
        waiting.waiting(e);
      }
      long until = ticker.nanoTime() + RECHECK.toNanos();
      while (!stop.getAsBoolean()
          && ticker.nanoTime() - until < 0
          && fingerprint().equals(seen)
          && !recheckNow.getAsBoolean()) {
        TimeUnit.NANOSECONDS.sleep(POLL.toNanos());
      }
      if (stop.getAsBoolean()) {
        return Optional.empty();
      }
    }
  }

  /** Existence, size, mtime and inode of the four files (through symlinks: the ..data layout). */
  private List<Object> fingerprint() {
    List<Object> out = new ArrayList<>();
    for (Path p :
        List.of(files.certificateChain(), files.privateKey(), files.trustBundle(), files.token())) {
      try {
        var a = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class);
        out.add(List.of(a.size(), a.lastModifiedTime(), String.valueOf(a.fileKey())));
      } catch (IOException | SecurityException e) {
        out.add(e.getClass().getSimpleName());
      }
    }
    return out;
  }
}
