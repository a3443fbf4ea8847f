package io.ql3.worker.transport.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.transport.testing.CredentialDir;
import io.ql3.worker.transport.testing.MutableClock;
import io.ql3.worker.transport.testing.TestPki;
import io.ql3.worker.transport.testing.Vectors;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential provider's log lines as an operator sees them. The expiry warning: one line when a
 * certificate expiring within the threshold (default 7 days) is installed (start-up or rotation),
 * none for repeated checks of the same certificate, a daily reminder, and nothing at all for a
 * long-lived certificate. A file that stays unreadable: one warning, and one line when it is back.
 * The {@code System.Logger} of {@link CredentialProvider} is backed by java.util.logging (no other
 * {@code LoggerFinder} is on the class path), so a handler on its logger sees every line.
 */
class CredentialLogLinesTest {
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path tmp;

  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final SimpleFormatter formatter = new SimpleFormatter();
  // Held strongly: java.util.logging keeps only weak references to loggers.
  private Logger julLogger;
  private Handler capture;
  private TestPki.Issued ca;
  private MutableClock clock;
  private CredentialDir dir;

  @BeforeEach
  void setUp() {
    julLogger = Logger.getLogger(CredentialProvider.class.getName());
    capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    capture.setLevel(Level.ALL);
    julLogger.addHandler(capture);
    ca = TestPki.rootCa("ca");
    clock = new MutableClock(Instant.now());
    dir = new CredentialDir(tmp.resolve("creds"));
  }

  @AfterEach
  void tearDown() {
    julLogger.removeHandler(capture);
  }

  /** Half a day past whole days, so that whole days left do not depend on sub-second timing. */
  private TestPki.Issued clientValidFor(Duration d) {
    Instant now = Instant.now();
    return ca.issue(
        TestPki.Spec.forClient(Vectors.WORKER)
            .validity(now.minus(Duration.ofHours(1)), now.plus(d).plus(Duration.ofHours(12))));
  }

  private CredentialProvider load() throws CredentialException {
    return CredentialProvider.load(
        dir.files(), Vectors.WORKER, clock, CredentialProvider.Settings.defaults());
  }

  /** The formatted expiry warnings logged so far. */
  private List<String> expiryWarnings() {
    return records.stream()
        .filter(r -> r.getLevel() == Level.WARNING)
        .map(formatter::formatMessage)
        .filter(m -> m.contains("expires in"))
        .toList();
  }

  private static void checkMany(CredentialProvider p) {
    for (int i = 0; i < 50; i++) {
      p.checkNow(); // each one stats the files, as before a handshake
      p.current();
    }
  }

  @Test
  void certificateExpiringWithinTheThresholdIsWarnedOncePerChangeAndThenDaily() throws Exception {
    TestPki.Issued shortLived = clientValidFor(Duration.ofDays(3));
    dir.write(shortLived, ca, CredentialDir.TOKEN);

    CredentialProvider p = load();
    assertThat(p.daysToExpiry()).isEqualTo(3);
    assertThat(expiryWarnings())
        .singleElement()
        .satisfies(
            line -> {
              assertThat(line)
                  .startsWith("client certificate expires in 3 days: CredentialSet[generation=1,")
                  .contains("sha256=" + shortLived.sha256())
                  .doesNotContain("PRIVATE");
            });

    clock.advance(
        Duration.ofHours(23)); // same certificate, many checks within the day: nothing new
    checkMany(p);
    assertThat(expiryWarnings()).hasSize(1);

    TestPki.Issued next = clientValidFor(Duration.ofDays(5));
    dir.rotateAtomically(next);
    clock.realNowPlus(SETTLE);
    checkMany(p); // the change is installed by the first check: exactly one line for it
    assertThat(p.tls().generation()).isEqualTo(2);
    assertThat(expiryWarnings()).hasSize(2);
    assertThat(expiryWarnings().get(1))
        .contains("generation=2")
        .contains("sha256=" + next.sha256());

    clock.advance(Duration.ofHours(23)); // less than a day after the rotation's warning
    checkMany(p);
    assertThat(expiryWarnings()).hasSize(2);

    clock.advance(Duration.ofHours(2)); // a day later, still unchanged: one reminder
    checkMany(p);
    assertThat(expiryWarnings()).hasSize(3);
    assertThat(expiryWarnings().get(2)).contains("generation=2");
  }

  @Test
  void longLivedCertificateIsNeverWarnedAbout() throws Exception {
    TestPki.Issued longLived = clientValidFor(Duration.ofDays(90));
    dir.write(longLived, ca, CredentialDir.TOKEN);

    CredentialProvider p = load();
    checkMany(p);
    dir.rotateAtomically(clientValidFor(Duration.ofDays(90)));
    clock.realNowPlus(SETTLE);
    checkMany(p);
    assertThat(p.tls().generation()).isEqualTo(2);
    clock.advance(Duration.ofDays(2));
    checkMany(p);

    assertThat(p.daysToExpiry()).isGreaterThan(80);
    assertThat(expiryWarnings()).isEmpty();
    // The capture itself works: installs were logged at INFO through the same handler.
    assertThat(records)
        .extracting(formatter::formatMessage)
        .anySatisfy(m -> assertThat(m).startsWith("credentials installed:"))
        .anySatisfy(m -> assertThat(m).startsWith("credentials rotated:"));
  }

  @Test
  void warningThresholdFollowsTheSetting() throws Exception {
    dir.write(clientValidFor(Duration.ofDays(20)), ca, CredentialDir.TOKEN);
    CredentialProvider.load(
        dir.files(), Vectors.WORKER, clock, CredentialProvider.Settings.defaults());
    assertThat(expiryWarnings()).isEmpty(); // 20 days left, default threshold 7

    CredentialProvider.load(
        dir.files(),
        Vectors.WORKER,
        clock,
        new CredentialProvider.Settings(
            Duration.ofSeconds(1), Duration.ofDays(30), Duration.ofMillis(250)));
    assertThat(expiryWarnings())
        .singleElement()
        .satisfies(l -> assertThat(l).contains("expires in 20 days"));
  }

  @Test
  void aCredentialFileThatStaysMissingIsWarnedOnceAndItsReturnSaid() throws Exception {
    dir.write(clientValidFor(Duration.ofDays(90)), ca, CredentialDir.TOKEN);
    CredentialProvider p = load();
    java.nio.file.Path key = dir.files().privateKey();
    byte[] saved = java.nio.file.Files.readAllBytes(key);
    java.nio.file.Files.delete(key);
    p.checkNow();
    assertThat(warnings("unreadable")).as("a gap shorter than the settle window").isEmpty();
    clock.realNowPlus(SETTLE);
    checkMany(p);
    assertThat(warnings("unreadable"))
        .singleElement()
        .asString()
        .contains("keeping the installed set")
        .contains(key.getFileName().toString());
    assertThat(p.tls().generation()).as("still in use").isEqualTo(1);
    java.nio.file.Files.write(key, saved);
    java.nio.file.Files.setPosixFilePermissions(
        key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    p.checkNow();
    assertThat(
            records.stream()
                .map(formatter::formatMessage)
                .filter(m -> m.contains("readable again")))
        .hasSize(1);
  }

  private List<String> warnings(String containing) {
    return records.stream()
        .filter(r -> r.getLevel() == Level.WARNING)
        .map(formatter::formatMessage)
        .filter(m -> m.contains(containing))
        .toList();
  }
}
