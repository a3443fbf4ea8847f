package io.ql3.worker.cli;

import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.runtime.ExitCode;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.status.StatusFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ql3-worker status}: the running agent's status file, and whether the agent is really
 * there.
 */
@Command(
    modelTransformer = CommandExitCodes.Help.class,
    name = "status",
    description = {
      "Show the running agent's status (from its status file).",
      "Exit 0 only when the agent that wrote it is running and the file is fresh."
    })
final class StatusCommand implements Callable<Integer> {
  /** How often --wait-ready looks at the file. */
  private static final long POLL_MS = 200;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--profile",
      description = Commands.PROFILE_HELP,
      converter = Commands.ProfileName.class)
  String profile;

  @Option(names = "--config", required = true, description = "the TOML configuration file")
  Path config;

  @Option(names = "--json", description = "print the status file as JSON")
  boolean json;

  @Option(
      names = "--wait-ready",
      arity = "0..1",
      fallbackValue = "60",
      paramLabel = "SECONDS",
      description = {
        "wait until the agent is running with a registered session (at most SECONDS, default 60);",
        "fail if it is not by then (see Exit codes: try later)"
      })
  Integer waitReady;

  @Override
  public Integer call() throws Exception {
    AgentConfig c = Commands.loadIgnoringGate(config, profile);
    PrintWriter err = spec.commandLine().getErr();
    if (c.statusFile().isEmpty()) {
      err.println("ql3-worker: " + c.source() + ": status.file is not configured");
      return ExitCode.CONFIG.code();
    }
    Path file = c.statusFile().get();
    long deadline = System.nanoTime() + (waitReady == null ? 0 : waitReady * 1_000_000_000L);
    while (true) {
      Map<String, Object> s;
      StatusVerdict v;
      try {
        s = StatusFile.read(file);
        v = StatusVerdict.of(s, Clock.systemUTC().instant(), c.cadence(), StatusVerdict::alive);
      } catch (NoSuchFileException e) {
        s = null;
        v = null;
        if (waitReady == null) {
          err.println("ql3-worker: no status file at " + file + " (is the agent running?)");
          return ExitCode.NOINPUT.code();
        }
      } catch (IOException | ContractViolation e) {
        err.println("ql3-worker: cannot read " + file + ": " + e.getMessage());
        return ExitCode.DATAERR.code();
      }
      if (waitReady == null || v != null && v.ready(s)) {
        return print(file, s, v);
      }
      if (System.nanoTime() - deadline > 0) {
        err.println(
            "ql3-worker: not ready after "
                + waitReady
                + " s: "
                + (v == null
                    ? "no status file at " + file
                    : v.why()
                        + ", session "
                        + s.get("sessionState")
                        + (s.get("lastProblem") == null
                            ? ""
                            : ", last problem: " + s.get("lastProblem"))));
        return ExitCode.TEMPFAIL.code();
      }
      Thread.sleep(POLL_MS);
    }
  }

  private int print(Path file, Map<String, Object> s, StatusVerdict v) throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip());
    } else {
      for (Map.Entry<String, Object> e : s.entrySet()) {
        out.printf("%-24s %s%n", e.getKey(), e.getValue() == null ? "-" : e.getValue());
      }
    }
    if (v.liveness() != StatusVerdict.Liveness.RUNNING) {
      spec.commandLine().getErr().println("ql3-worker: not running: " + v.why());
      return ExitCode.UNAVAILABLE.code();
    }
    return ExitCode.OK.code();
  }
}
