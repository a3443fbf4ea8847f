package io.ql3.worker.cli;

import io.ql3.worker.runtime.boot.CredentialWait;
import io.ql3.worker.runtime.status.StatusFile;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * Whether a status file describes a live agent: the writer's process must exist and the file must
 * be fresh (rewritten within 3 cadences, and never less than 3 of its write intervals).
 *
 * @param liveness what the file says about the agent
 * @param why one sentence for the operator
 */
record StatusVerdict(Liveness liveness, String why) {
  /** The agent behind a status file. */
  enum Liveness {
    /** Its process exists and the file is fresh. */
    RUNNING,
    /** It wrote {@code phase = stopped}: it exited cleanly. */
    STOPPED,
    /** The process that wrote the file no longer exists (crashed, killed, host rebooted). */
    GONE,
    /** The process exists but has not rewritten the file for too long (hung cadence). */
    STALE
  }

  /** Ready for scripts: running and a session registered. */
  boolean ready(Map<String, Object> status) {
    return liveness == Liveness.RUNNING && "active".equals(status.get("sessionState"));
  }

  static StatusVerdict of(
      Map<String, Object> status, Instant now, Duration cadence, LongPredicate pidAlive) {
    Instant at;
    try {
      at = Instant.parse(String.valueOf(status.get("updatedAt")));
    } catch (DateTimeParseException e) {
      return new StatusVerdict(Liveness.STALE, "the file has no valid updatedAt");
    }
    long pid = status.get("pid") instanceof Number n ? n.longValue() : -1;
    if ("stopped".equals(status.get("phase"))) {
      return new StatusVerdict(Liveness.STOPPED, "the agent (pid " + pid + ") stopped at " + at);
    }
    if (pid <= 0 || !pidAlive.test(pid)) {
      return new StatusVerdict(
          Liveness.GONE,
          "the agent (pid "
              + pid
              + ") is gone: it did not stop cleanly;"
              + " the file was last written at "
              + at);
    }
    // Waiting for credentials, the agent rewrites the file at each re-check, not each cadence.
    Duration limit =
        "waiting_for_credentials".equals(status.get("phase"))
            ? CredentialWait.RECHECK.multipliedBy(3)
            : maxAge(cadence);
    Duration age = Duration.between(at, now);
    if (age.compareTo(limit) > 0) {
      return new StatusVerdict(
          Liveness.STALE,
          "the agent (pid "
              + pid
              + ") last wrote the file "
              + age.toSeconds()
              + " s ago (at "
              + at
              + "), more than "
              + limit.toMillis()
              + " ms: its cadence is stuck");
    }
    return new StatusVerdict(Liveness.RUNNING, "the agent (pid " + pid + ") is running");
  }

  /** 3 cadences, but at least 3 write intervals (the file is rewritten at most once a second). */
  static Duration maxAge(Duration cadence) {
    Duration three = cadence.multipliedBy(3);
    Duration floor = StatusFile.WRITE_INTERVAL.multipliedBy(3);
    return three.compareTo(floor) > 0 ? three : floor;
  }

  static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }
}
