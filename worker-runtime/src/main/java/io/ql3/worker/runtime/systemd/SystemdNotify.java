package io.ql3.worker.runtime.systemd;

import java.time.Duration;
import java.util.Map;

/** Reads sd_notify(3)'s environment and opens the notification socket, or explains why not. */
final class SystemdNotify {
  private SystemdNotify() {}

  /**
   * The socket named by {@code NOTIFY_SOCKET}; {@link Notifier#NONE} when it is unset (without a
   * word: not under systemd) or cannot be opened (reported: systemd waits for {@code READY=1}).
   */
  static Notifier open(String notifySocket, SystemdService.Problems problems) {
    if (notifySocket == null || notifySocket.isEmpty()) {
      return Notifier.NONE;
    }
    try {
      return EpollNotifySocket.open(notifySocket);
    } catch (Throwable t) {
      // UnsatisfiedLinkError/NoClassDefFoundError where Netty has no native library for this
      // machine: the agent runs on, systemd sees no readiness (see docs/install.md).
      problems.report(
          "NOTIFY_SOCKET="
              + notifySocket
              + " is set but cannot be used ("
              + t
              + "); no readiness, status or watchdog notifications will be sent");
      return Notifier.NONE;
    }
  }

  /**
   * {@code WATCHDOG_USEC} when it is meant for this process ({@code WATCHDOG_PID} unset or ours).
   */
  static Duration watchdog(Map<String, String> env, long pid, SystemdService.Problems problems) {
    String usec = env.get("WATCHDOG_USEC");
    if (usec == null || usec.isEmpty()) {
      return Duration.ZERO;
    }
    String forPid = env.get("WATCHDOG_PID");
    if (forPid != null && !forPid.isEmpty() && !forPid.equals(Long.toString(pid))) {
      return Duration.ZERO;
    }
    try {
      long us = Long.parseLong(usec);
      if (us > 0) {
        return Duration.ofNanos(us * 1000);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.report(
        "WATCHDOG_USEC=" + usec + " is not a positive number of microseconds; no watchdog pings");
    return Duration.ZERO;
  }
}
