package io.ql3.worker.cli;

import io.ql3.worker.cli.config.TomlConfigLoader;
import io.ql3.worker.cli.log.EventLoggerFinder;
import io.ql3.worker.runtime.ExitCode;
import io.ql3.worker.runtime.WorkerAgent;
import io.ql3.worker.runtime.cadence.Ticker;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigException;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.runtime.log.JournalStream;
import io.ql3.worker.runtime.systemd.SystemdService;
import io.ql3.worker.transport.credentials.CredentialCheckRecord;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Set;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code ql3-worker run --profile edge|node --config FILE [--log-format logfmt|json]
 * [--wait-for-recovery]}: the service. Parsed by hand, not by picocli, so the long-running process
 * loads none of picocli's classes (docs/perf/edge.md, "Where start-up goes").
 */
final class RunCommand {
  /**
   * What {@code run} can return: the agent's codes and {@link ExitCode#USAGE} for a bad command
   * line.
   */
  static final Set<ExitCode> EXIT_CODES =
      EnumSet.of(
          ExitCode.OK,
          ExitCode.USAGE,
          ExitCode.SOFTWARE,
          ExitCode.IOERR,
          ExitCode.TEMPFAIL,
          ExitCode.NOPERM,
          ExitCode.CONFIG);

  /**
   * Built when asked for: its exit-code lines use the JDK's formatter, which a service never needs.
   */
  static String usage() {
    return """
      Usage: ql3-worker run --config FILE [--profile edge|node] [--log-format logfmt|json]
                            [--log-level debug|info|warn|error] [--wait-for-recovery]
                            [--help] [--version]
      Runs the agent until SIGTERM/SIGINT: register, heartbeat, pull and run work, then drain
      and go offline. A second signal cancels running work at once. SIGHUP re-reads the
      credentials and reopens the status and metrics files (other changes need a restart).
        --config             the TOML configuration file
        --profile            edge or node: defaults and bounds for slots, page and cadence;
                             default: the configuration's profile key (both given: must agree)
        --log-format         logfmt (default, or as configured) or json, one line per event
        --log-level          the lowest level written: debug, info (default, or as configured),
                             warn or error
        --wait-for-recovery  when the journal needs an operator, wait (re-checking every 10 s)
                             instead of exiting %d
      Exit codes:
      """
            .formatted(ExitCode.CONFIG.code())
        + ExitCode.usageLines(RunCommand.EXIT_CODES, 90);
  }

  private RunCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    String profileName = null;
    String config = null;
    String logFormat = null;
    String logLevel = null;
    boolean waitForRecovery = false;
    for (int i = 1; i < args.length; i++) {
      String a = args[i];
      String value = null;
      int eq = a.indexOf('=');
      String name = eq > 0 ? a.substring(0, eq) : a;
      if (eq > 0) {
        value = a.substring(eq + 1);
      }
      switch (name) {
        case "--help", "-h" -> {
          out.println(usage());
          return ExitCode.OK.code();
        }
        case "--version", "-V" -> {
          out.println(Commands.versionLine());
          return ExitCode.OK.code();
        }
        case "--wait-for-recovery" -> waitForRecovery = true;
        case "--profile", "--config", "--log-format", "--log-level" -> {
          if (value == null) {
            if (i + 1 >= args.length) {
              err.println("ql3-worker run: " + name + " needs a value\n" + usage());
              return ExitCode.USAGE.code();
            }
            value = args[++i];
          }
          switch (name) {
            case "--profile" -> profileName = value;
            case "--config" -> config = value;
            case "--log-level" -> logLevel = value;
            default -> logFormat = value;
          }
        }
        default -> {
          err.println("ql3-worker run: unknown option '" + a + "'\n" + usage());
          return ExitCode.USAGE.code();
        }
      }
    }
    if (config == null) {
      err.println("ql3-worker run: --config is required\n" + usage());
      return ExitCode.USAGE.code();
    }
    AgentProfile profile = null;
    try {
      profile = profileName == null ? null : AgentProfile.fromWireName(profileName);
    } catch (IllegalArgumentException e) {
      err.println("ql3-worker run: " + e.getMessage());
      return ExitCode.USAGE.code();
    }
    if (logFormat != null && !logFormat.equals("logfmt") && !logFormat.equals("json")) {
      err.println("ql3-worker run: --log-format must be logfmt or json");
      return ExitCode.USAGE.code();
    }
    EventLog.Level level = null;
    try {
      level = logLevel == null ? null : EventLog.Level.fromText(logLevel);
    } catch (IllegalArgumentException e) {
      err.println("ql3-worker run: --log-level " + e.getMessage());
      return ExitCode.USAGE.code();
    }

    // The gate: a disabled agent stops here, before reading any credential or path.
    ConfigReader.Result result;
    try {
      result = new TomlConfigLoader().load(Path.of(config), profile);
    } catch (ConfigException e) {
      err.println("ql3-worker: configuration refused: " + e.getMessage());
      return ExitCode.CONFIG.code();
    }
    if (result instanceof ConfigReader.Disabled d) {
      String why = "disabled by " + d.source() + " (enabled = false)";
      out.println("ql3-worker: " + why + "; exiting");
      try (SystemdService systemd =
          SystemdService.fromEnvironment(
              System.getenv(),
              ProcessHandle.current().pid(),
              problem -> err.println("ql3-worker: sd_notify unavailable: " + problem))) {
        systemd.ready(SystemdService.Readiness.READY_DISABLED, why);
      }
      return ExitCode.OK.code();
    }
    AgentConfig cfg = ((ConfigReader.Enabled) result).config();
    AgentConfig.LogFormat format =
        logFormat == null
            ? cfg.logFormat()
            : logFormat.equals("json") ? AgentConfig.LogFormat.JSON : AgentConfig.LogFormat.LOGFMT;
    // Under journald (JOURNAL_STREAM is our stdout) each line carries its priority: journalctl -p
    // works.
    EventLog log =
        new EventLog(
            out,
            format,
            Clock.systemUTC(),
            level == null ? cfg.logLevel() : level,
            JournalStream.isStdout());
    EventLoggerFinder.install(log);
    // sd_notify only under systemd (NOTIFY_SOCKET set): only then is Netty's native library loaded.
    SystemdService systemd =
        SystemdService.fromEnvironment(
            System.getenv(),
            ProcessHandle.current().pid(),
            problem -> log.error("systemd.notify_unavailable", "problem", problem));
    WorkerAgent agent =
        new WorkerAgent(
            cfg,
            new WorkerAgent.Environment(
                Clock.systemUTC(),
                Ticker.SYSTEM,
                log,
                waitForRecovery,
                systemd,
                // Under systemd, the instance's StateDirectory= keeps what the credentials proved.
                CredentialCheckRecord.inStateDirectory(System.getenv("STATE_DIRECTORY"))));
    // SIGTERM/SIGINT drain instead of exiting: the JVM's default would abandon the runs.
    Signal.handle(new Signal("TERM"), s -> agent.requestShutdown());
    Signal.handle(new Signal("INT"), s -> agent.requestShutdown());
    // SIGHUP (systemctl reload): credentials re-read, status/metrics files reopened; never a stop.
    // Started with SIGHUP ignored (nohup, some supervisors), the JVM cannot catch it: say so.
    if (Signal.handle(new Signal("HUP"), s -> agent.requestReload()) == SignalHandler.SIG_IGN) {
      log.warn(
          "agent.reload_unavailable",
          "why",
          "started with SIGHUP ignored (nohup or the parent process): SIGHUP does nothing; credential"
              + " files are still re-read when they change, other reloads need a restart");
    }
    return agent.run();
  }
}
