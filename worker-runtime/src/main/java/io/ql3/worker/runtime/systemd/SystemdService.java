package io.ql3.worker.runtime.systemd;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The agent's side of {@code Type=notify} (sd_notify(3)): readiness once, {@code STATUS=} when it
 * changes, {@code STOPPING=1} at drain and {@code WATCHDOG=1} pings. Outside systemd every call is
 * a no-op.
 *
 * <p>The watchdog is fed by {@link #progressed(long)}, which the agent calls on its cadence thread
 * at the end of every step that completed: a cadence that hangs (or whose every step throws) stops
 * the pings, and systemd kills and restarts the process after {@code WatchdogSec=}. Pings go at
 * half the interval systemd announced in {@code WATCHDOG_USEC} (as sd_watchdog_enabled(3)
 * recommends).
 *
 * <p>Not thread-safe except {@link #stopping(String)}: the cadence thread owns it.
 */
public final class SystemdService implements AutoCloseable {
  /** What systemd has been told about start-up. */
  public enum Readiness {
    /** Nothing yet: systemd still shows "activating". */
    STARTING,
    /** {@code READY=1}: journal reconciled and a session registered. */
    READY_REGISTERED,
    /** {@code READY=1}: journal reconciled, the ingress not reachable yet; retrying. */
    READY_RETRYING,
    /**
     * {@code READY=1} just before a clean exit: the configuration disables the agent. systemd fails
     * a {@code Type=notify} unit whose main process exits before {@code READY=1} (result {@code
     * protocol}), even with status 0.
     */
    READY_DISABLED
  }

  private final Notifier notifier;
  private final long pingEveryNanos;
  private Readiness readiness = Readiness.STARTING;
  private String lastStatus;
  private boolean pinged;
  private long lastPingAt;
  private volatile boolean stopping;

  /**
   * @param watchdog the interval systemd announced, or {@link Duration#ZERO} for no watchdog
   */
  public SystemdService(Notifier notifier, Duration watchdog) {
    this.notifier = Objects.requireNonNull(notifier);
    this.pingEveryNanos = watchdog.toNanos() / 2;
  }

  /** Not under systemd: nothing is sent. */
  public static SystemdService none() {
    return new SystemdService(Notifier.NONE, Duration.ZERO);
  }

  /**
   * From the process environment: {@code NOTIFY_SOCKET}, {@code WATCHDOG_USEC} and {@code
   * WATCHDOG_PID}. Netty's native library is loaded only when {@code NOTIFY_SOCKET} is set.
   */
  public static SystemdService fromEnvironment(
      Map<String, String> env, long pid, Problems problems) {
    Notifier n = SystemdNotify.open(env.get("NOTIFY_SOCKET"), problems);
    return new SystemdService(
        n, n == Notifier.NONE ? Duration.ZERO : SystemdNotify.watchdog(env, pid, problems));
  }

  /** Where a problem of the notification channel is reported (the agent's log). */
  @FunctionalInterface
  public interface Problems {
    void report(String what);
  }

  public Readiness readiness() {
    return readiness;
  }

  public boolean watchdogEnabled() {
    return pingEveryNanos > 0;
  }

  /** Where notifications go ({@code none} outside systemd). */
  public String describe() {
    return notifier.describe()
        + (watchdogEnabled() ? ", watchdog ping every " + Duration.ofNanos(pingEveryNanos) : "");
  }

  /** {@code READY=1} with its reason; once (later calls only update the status). */
  public void ready(Readiness why, String status) {
    if (why == Readiness.STARTING) {
      throw new IllegalArgumentException("ready needs a reason");
    }
    if (readiness != Readiness.STARTING) {
      status(status);
      return;
    }
    readiness = why;
    lastStatus = status;
    notifier.send("READY=1\nSTATUS=" + oneLine(status));
  }

  /**
   * Still starting, for a reason the agent waits out: {@code STATUS=} and {@code
   * EXTEND_TIMEOUT_USEC=} (systemd keeps the unit "activating" for {@code extendBy} more instead of
   * failing it at {@code TimeoutStartSec=}). Call again before {@code extendBy} passes.
   */
  public void waiting(String status, Duration extendBy) {
    if (readiness != Readiness.STARTING) {
      status(status);
      return;
    }
    lastStatus = status;
    notifier.send(
        "EXTEND_TIMEOUT_USEC=" + extendBy.toNanos() / 1000 + "\nSTATUS=" + oneLine(status));
  }

  /** {@code STATUS=} when it differs from the last one sent. */
  public void status(String status) {
    if (status.equals(lastStatus)) {
      return;
    }
    lastStatus = status;
    notifier.send("STATUS=" + oneLine(status));
  }

  /** {@code STOPPING=1}: the drain began. Once; safe from any thread. */
  public synchronized void stopping(String status) {
    if (stopping) {
      return;
    }
    stopping = true;
    notifier.send("STOPPING=1\nSTATUS=" + oneLine(status));
  }

  /**
   * A cadence step completed at {@code nowNanos}: a {@code WATCHDOG=1} ping when half the watchdog
   * interval passed since the last one.
   */
  public void progressed(long nowNanos) {
    if (pingEveryNanos <= 0 || pinged && nowNanos - lastPingAt < pingEveryNanos) {
      return;
    }
    pinged = true;
    lastPingAt = nowNanos;
    notifier.send("WATCHDOG=1");
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ');
  }

  @Override
  public void close() {
    notifier.close();
  }
}
