package io.ql3.worker.runtime;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalOwnedException;
import io.ql3.worker.journal.RecoveryRequired;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.log.EventLog;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens the journal for {@code run}, owned by this process, or says why it cannot: owned by another
 * process (75), unreadable (74), or its recovery needs an operator (78; with {@code
 * --wait-for-recovery} the directory is released and looked at again every 10 s until a shutdown
 * signal).
 */
final class JournalStartup {
  private final AgentConfig config;
  private final EventLog log;
  private final boolean waitForRecovery;
  private final AtomicInteger signals;
  private Journal journal;

  JournalStartup(AgentConfig config, EventLog log, boolean waitForRecovery, AtomicInteger signals) {
    this.config = config;
    this.log = log;
    this.waitForRecovery = waitForRecovery;
    this.signals = signals;
  }

  /** The journal {@link #open()} opened; {@code null} unless it returned {@link ExitCode#OK}. */
  Journal journal() {
    return journal;
  }

  /** {@link ExitCode#OK} with {@link #journal()} open, or the exit code, after logging why. */
  int open() {
    while (true) {
      try {
        journal = Journal.open(JournalConfig.of(config.journal().dir(), config.workerId()));
      } catch (JournalOwnedException e) {
        log.error(
            "journal.owned",
            "dir",
            config.journal().dir(),
            "owner_pid",
            e.ownerPid().isPresent() ? e.ownerPid().getAsLong() : "unknown",
            "problem",
            e.getMessage());
        return ExitCode.TEMPFAIL.code();
      } catch (RuntimeException e) {
        log.error(
            "journal.unreadable",
            "dir",
            config.journal().dir(),
            "problem",
            String.valueOf(e.getMessage()));
        return ExitCode.IOERR.code();
      }
      if (journal.status() == Journal.Status.OPEN) {
        log.info("journal.open", "dir", config.journal().dir(), "report", journal.report());
        return ExitCode.OK.code();
      }
      log.error(
          "journal.recovery_required",
          "dir",
          config.journal().dir(),
          "report",
          journal.report(),
          "action",
          journal.report().recoveryRequired().map(p -> action(p, config)).orElse("")
              + "; no register, no pull");
      journal.close();
      journal = null;
      if (!waitForRecovery) {
        return ExitCode.CONFIG.code();
      }
      // Release the directory so an operator can resolve it, then look again.
      try {
        if (signals.get() > 0) {
          return ExitCode.CONFIG.code();
        }
        Thread.sleep(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCode.CONFIG.code();
      }
    }
  }

  /**
   * What the operator does about {@code problem} (docs/journal.md, "Inspection and operator
   * resolution").
   */
  static String action(RecoveryRequired problem, AgentConfig config) {
    return switch (problem.reason()) {
      case CORRUPT_RECORD, CORRUPT_HEADER, SEQUENCE_GAP ->
          "with the agent stopped, 'ql3-worker journal discard-damaged --config "
              + config.source()
              + " --profile "
              + config.profile().wireName()
              + " --reason "
              + problem.reason()
              + " --file "
              + problem.file()
              + " --offset "
              + problem.offset()
              + "' moves the damage aside ('ql3-worker journal verify' shows it); reconcile the"
              + " runs it described with the server by hand";
      case FOREIGN_WORKER ->
          "the directory belongs to another worker: check worker.id and journal.dir";
      case UNKNOWN_FORMAT_VERSION ->
          "another version of ql3-worker wrote it: run that version, or move the directory aside";
      case CORRUPT_SNAPSHOT, ILLEGAL_TRANSITION ->
          "no command repairs it: move the directory aside (keep it for analysis) and reconcile"
              + " its runs with the server by hand";
    };
  }
}
