package io.ql3.worker.cli;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalException;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalInspector;
import io.ql3.worker.journal.JournalOwnedException;
import io.ql3.worker.journal.JournalRecord;
import io.ql3.worker.journal.JournalStateException;
import io.ql3.worker.journal.RunFact;
import io.ql3.worker.runtime.ExitCode;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.transport.credentials.FilePermissions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ql3-worker journal}: inspect, verify and resolve the execution journal offline. */
@Command(
    modelTransformer = CommandExitCodes.Help.class,
    name = "journal",
    description = "Inspect, verify or resolve the execution journal.",
    subcommands = {
      JournalCmd.Inspect.class,
      JournalCmd.Verify.class,
      JournalCmd.Resolve.class,
      JournalCmd.DiscardDamaged.class
    })
final class JournalCmd implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCode.USAGE.code();
  }

  static void printFacts(PrintWriter out, JournalFacts f) {
    out.println("worker:              " + f.workerId());
    out.println("last sequence:       " + f.lastSeq());
    out.println("session:             " + f.session().map(Object::toString).orElse("none"));
    printRuns(out, "accepted (not started)", f.accepted());
    printRuns(out, "running (uncertain after a crash)", f.running());
    printRuns(out, "pending completions", f.pendingCompletions());
    out.println("open pulls:          " + f.openPulls().size());
    out.println("settled (window):    " + f.settled().size());
    // Refused in a way no resend can change (section 6 clarifications): the server reclaims them
    // by lease.
    printRuns(
        out,
        "undeliverable (window)",
        f.settled().stream()
            .filter(r -> r.settlement() == io.ql3.worker.journal.Settlement.UNDELIVERABLE)
            .toList());
    f.recoveryRequired().ifPresent(r -> out.println("RECOVERY REQUIRED:   " + r));
  }

  private static void printRuns(PrintWriter out, String title, List<RunFact> runs) {
    out.println(title + ": " + runs.size());
    for (RunFact r : runs) {
      out.println(
          "  "
              + r.key().runId()
              + " attempt "
              + r.key().attempt()
              + " (session "
              + r.offer().sessionId()
              + ", generation "
              + r.offer().generation()
              + ", executor "
              + r.offer().executor()
              + ")");
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "inspect",
      description = "List the journal's facts (read-only; safe while the agent runs).")
  static final class Inspect implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--profile",
        description = Commands.PROFILE_HELP,
        converter = Commands.ProfileName.class)
    String profile;

    @Option(names = "--config", required = true)
    Path config;

    @Override
    public Integer call() throws Exception {
      AgentConfig c = Commands.loadIgnoringGate(config, profile);
      return verified(
          c,
          spec.commandLine().getErr(),
          v -> {
            printFacts(spec.commandLine().getOut(), v.facts());
            return ExitCode.OK.code();
          });
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "verify",
      description = "Verify the journal read-only; exit 0 when an open would need no operator.")
  static final class Verify implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--profile",
        description = Commands.PROFILE_HELP,
        converter = Commands.ProfileName.class)
    String profile;

    @Option(names = "--config", required = true)
    Path config;

    @Override
    public Integer call() throws Exception {
      AgentConfig c = Commands.loadIgnoringGate(config, profile);
      return verified(c, spec.commandLine().getErr(), this::report);
    }

    private int report(JournalInspector.Verification v) {
      PrintWriter out = spec.commandLine().getOut();
      out.println("records replayed:    " + v.recordsReplayed());
      out.println("torn tail bytes:     " + v.tornTailBytes());
      out.println("leftover files:      " + v.leftoverFiles());
      out.println("would be uncertain:  " + v.wouldDeclareUncertain().size());
      if (v.recoveryRequired().isPresent()) {
        out.println("RECOVERY REQUIRED:   " + v.recoveryRequired().get());
        return ExitCode.CONFIG.code();
      }
      out.println("ok");
      return ExitCode.OK.code();
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "resolve",
      description =
          "Settle one run on purpose (for example an uncertain run handled by hand). Needs the agent stopped.")
  static final class Resolve implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--profile",
        description = Commands.PROFILE_HELP,
        converter = Commands.ProfileName.class)
    String profile;

    @Option(names = "--config", required = true)
    Path config;

    @Parameters(index = "0", description = "the runId")
    String runId;

    @Parameters(index = "1", description = "the attempt")
    long attempt;

    @Option(
        names = "--note",
        required = true,
        description = "why it is resolved (recorded in the journal)")
    String note;

    @Override
    public Integer call() throws Exception {
      AgentConfig c = Commands.loadIgnoringGate(config, profile);
      if (!Files.isDirectory(c.journal().dir())) {
        // Opening would create one, as whoever runs this: nothing is live in a journal not there.
        spec.commandLine()
            .getErr()
            .println("ql3-worker: no journal at " + c.journal().dir() + "; nothing changed");
        return ExitCode.USAGE.code();
      }
      Integer notOwner = notTheOwner(c, spec.commandLine().getErr());
      if (notOwner != null) {
        return notOwner;
      }
      JournalRecord.OperatorResolved resolved;
      try {
        resolved = new JournalRecord.OperatorResolved(runId, attempt, note);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage());
        return ExitCode.USAGE.code();
      }
      try (Journal j = Journal.open(JournalConfig.of(c.journal().dir(), c.workerId()))) {
        if (j.status() != Journal.Status.OPEN) {
          spec.commandLine()
              .getErr()
              .println("ql3-worker: the journal needs recovery first: " + j.report());
          return ExitCode.CONFIG.code();
        }
        j.append(resolved);
        spec.commandLine().getOut().println("resolved " + runId + " attempt " + attempt);
        return ExitCode.OK.code();
      } catch (JournalStateException e) {
        // Not a live run of this journal: nothing to resolve (inspect lists the live ones).
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage());
        return ExitCode.USAGE.code();
      } catch (JournalException e) {
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage());
        return ExitCode.TEMPFAIL.code();
      }
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "discard-damaged",
      description = {
        "Clear a damaged log on purpose (agent stopped): everything from the damage on is moved",
        "aside (never deleted) and the runs it described must be reconciled with the server by hand.",
        "Name exactly what 'journal verify' reported: reason, file and offset."
      })
  static final class DiscardDamaged implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--profile",
        description = Commands.PROFILE_HELP,
        converter = Commands.ProfileName.class)
    String profile;

    @Option(names = "--config", required = true)
    Path config;

    @Option(names = "--reason", required = true, description = "e.g. CORRUPT_RECORD")
    String reason;

    @Option(names = "--file", required = true, description = "the damaged segment file name")
    String file;

    @Option(
        names = "--offset",
        required = true,
        description = "the offset 'journal verify' reported")
    long offset;

    @Override
    public Integer call() throws Exception {
      AgentConfig c = Commands.loadIgnoringGate(config, profile);
      Integer notOwner = notTheOwner(c, spec.commandLine().getErr());
      if (notOwner != null) {
        return notOwner;
      }
      return verified(c, spec.commandLine().getErr(), v -> discard(c, v));
    }

    private int discard(AgentConfig c, JournalInspector.Verification v) {
      if (v.recoveryRequired().isEmpty()) {
        spec.commandLine()
            .getErr()
            .println("ql3-worker: the journal needs no recovery; nothing changed");
        return ExitCode.CONFIG.code();
      }
      var problem = v.recoveryRequired().get();
      if (!problem.reason().name().equals(reason)
          || !problem.file().equals(file)
          || problem.offset() != offset) {
        spec.commandLine()
            .getErr()
            .println(
                "ql3-worker: the journal reports "
                    + problem
                    + ", not what you named; nothing changed");
        return ExitCode.CONFIG.code();
      }
      try (Journal j =
          Journal.discardDamagedLog(JournalConfig.of(c.journal().dir(), c.workerId()), problem)) {
        spec.commandLine().getOut().println("moved aside: " + j.report().removedFiles());
        printFacts(spec.commandLine().getOut(), j.facts());
        return ExitCode.OK.code();
      } catch (JournalOwnedException e) {
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage() + " (stop the agent)");
        return ExitCode.TEMPFAIL.code();
      } catch (JournalException e) {
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage());
        return ExitCode.CONFIG.code();
      }
    }
  }

  /**
   * A command that writes the journal runs as the user that owns it, or not at all: what it wrote
   * as another user (root, through sudo) the agent could not open, and it would stop (74).
   */
  private static Integer notTheOwner(AgentConfig c, PrintWriter err) {
    Path dir = c.journal().dir();
    FilePermissions.Identity me = FilePermissions.Identity.current();
    int owner;
    try {
      owner = (Integer) Files.getAttribute(dir, "unix:uid");
    } catch (IOException | RuntimeException e) {
      return null; // no directory: the command says what it finds
    }
    if (me == null || owner == me.uid()) {
      return null;
    }
    err.println(
        "ql3-worker: "
            + dir
            + " belongs to uid "
            + owner
            + " and this runs as uid "
            + me.uid()
            + ": run it as the journal's owner (sudo -u ql3-worker ql3-worker journal ...);"
            + " files written as another user would stop the agent; nothing changed");
    return ExitCode.NOPERM.code();
  }

  /**
   * {@code then} applied to the journal verified read-only; or, when it cannot be read, why (on
   * {@code err}) and 77 when it was refused, else 74.
   */
  private static int verified(
      AgentConfig c,
      PrintWriter err,
      java.util.function.ToIntFunction<JournalInspector.Verification> then) {
    JournalInspector.Verification v;
    try {
      v = JournalInspector.verify(c.journal().dir(), c.workerId());
    } catch (UncheckedIOException e) {
      err.println("ql3-worker: cannot read the journal " + c.journal().dir() + ": " + e.getCause());
      return e.getCause() instanceof AccessDeniedException
          ? ExitCode.NOPERM.code()
          : ExitCode.IOERR.code();
    }
    return then.applyAsInt(v);
  }
}
