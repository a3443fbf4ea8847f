package io.ql3.worker.runtime.systemd;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.runtime.cadence.Cadence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SystemdServiceTest {
  /** Keeps what would have been sent. */
  static final class Recorder implements Notifier {
    final List<String> sent = new ArrayList<>();

    @Override
    public synchronized boolean send(String state) {
      sent.add(state);
      return true;
    }

    synchronized List<String> sent() {
      return List.copyOf(sent);
    }

    synchronized long count(String s) {
      return sent.stream().filter(s::equals).count();
    }

    @Override
    public String describe() {
      return "recorder";
    }

    @Override
    public void close() {}
  }

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void watchdogPingsAtHalfTheAnnouncedInterval() {
    Recorder r = new Recorder();
    SystemdService s = new SystemdService(r, Duration.ofSeconds(10));
    s.progressed(0);
    s.progressed(4 * SECOND);
    s.progressed(5 * SECOND - 1);
    assertThat(r.count("WATCHDOG=1")).isEqualTo(1);
    s.progressed(5 * SECOND);
    assertThat(r.count("WATCHDOG=1")).isEqualTo(2);
  }

  @Test
  void noWatchdogIntervalNoPings() {
    Recorder r = new Recorder();
    SystemdService s = new SystemdService(r, Duration.ZERO);
    s.progressed(0);
    s.progressed(100 * SECOND);
    assertThat(r.sent()).isEmpty();
    assertThat(s.watchdogEnabled()).isFalse();
  }

  @Test
  void readyOnceThenStatusOnlyWhenItChanges() {
    Recorder r = new Recorder();
    SystemdService s = new SystemdService(r, Duration.ZERO);
    s.status("before ready"); // STARTING: the agent sends none; the service does what it is told
    s.ready(SystemdService.Readiness.READY_RETRYING, "retrying");
    s.ready(SystemdService.Readiness.READY_REGISTERED, "registered");
    s.status("registered");
    s.status("registered\nsecond line");
    s.stopping("draining");
    s.stopping("draining again");
    assertThat(r.sent())
        .containsExactly(
            "STATUS=before ready",
            "READY=1\nSTATUS=retrying",
            "STATUS=registered",
            "STATUS=registered second line",
            "STOPPING=1\nSTATUS=draining");
    assertThat(s.readiness()).isEqualTo(SystemdService.Readiness.READY_RETRYING);
  }

  @Test
  void aFrozenCadenceStopsThePingsAndAResumedOneRestartsThem() throws Exception {
    Recorder r = new Recorder();
    SystemdService s = new SystemdService(r, Duration.ofSeconds(2));
    AtomicLong clock = new AtomicLong();
    AtomicBoolean freeze = new AtomicBoolean();
    CountDownLatch frozen = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // Every read of this ticker is a second later: every completed step is due a ping.
    try (Cadence cadence =
        new Cadence(
            "test-cadence",
            Duration.ofSeconds(1),
            () -> clock.addAndGet(SECOND),
            now -> {
              if (freeze.get()) {
                frozen.countDown();
                release.await();
              }
              s.progressed(now);
            },
            (t, e) -> {})) {
      new Thread(() -> cadence.runHere(() -> false)).start(); // the cadence on a thread of its own
      await(() -> r.count("WATCHDOG=1") >= 3);
      freeze.set(true);
      assertThat(frozen.await(30, TimeUnit.SECONDS)).isTrue();
      long atFreeze = r.count("WATCHDOG=1");
      for (int i = 0; i < 100; i++) {
        cadence.wake(); // a stuck step does not step again, however often it is woken
      }
      clock.addAndGet(3600 * SECOND);
      assertThat(r.count("WATCHDOG=1")).isEqualTo(atFreeze);
      freeze.set(false);
      release.countDown();
      await(() -> r.count("WATCHDOG=1") > atFreeze);
    }
  }

  @Test
  void watchdogOnlyForThisProcess() {
    List<String> problems = new ArrayList<>();
    assertThat(SystemdNotify.watchdog(Map.of("WATCHDOG_USEC", "60000000"), 42, problems::add))
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(
            SystemdNotify.watchdog(
                Map.of("WATCHDOG_USEC", "60000000", "WATCHDOG_PID", "42"), 42, problems::add))
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(
            SystemdNotify.watchdog(
                Map.of("WATCHDOG_USEC", "60000000", "WATCHDOG_PID", "7"), 42, problems::add))
        .isZero();
    assertThat(problems).isEmpty();
    assertThat(SystemdNotify.watchdog(Map.of("WATCHDOG_USEC", "soon"), 42, problems::add)).isZero();
    assertThat(problems).singleElement().asString().contains("WATCHDOG_USEC=soon");
  }

  @Test
  void noNotifySocketIsANoOpWithoutAWord() {
    List<String> problems = new ArrayList<>();
    SystemdService s =
        SystemdService.fromEnvironment(Map.of("WATCHDOG_USEC", "1000000"), 1, problems::add);
    assertThat(s.describe()).isEqualTo("none");
    assertThat(s.watchdogEnabled()).isFalse();
    assertThat(problems).isEmpty();
  }

  @Test
  void anUnusableNotifySocketIsReportedAndIgnored() {
    List<String> problems = new ArrayList<>();
    // A path that cannot be a socket: opening works (the socket is unbound), sending fails.
    SystemdService s =
        SystemdService.fromEnvironment(
            Map.of("NOTIFY_SOCKET", "/nonexistent/notify"), 1, problems::add);
    s.ready(SystemdService.Readiness.READY_REGISTERED, "x"); // must not throw
    s.close();
    assertThat(problems).isEmpty();
  }

  private static void await(java.util.function.BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("timed out").isNegative();
      Thread.sleep(5);
    }
  }
}
