package io.ql3.worker.cli;

import io.ql3.worker.cli.config.TomlConfigLoader;
import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.runtime.AgentCapability;
import io.ql3.worker.runtime.BuildInfo;
import io.ql3.worker.runtime.ExitCode;
import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigException;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.exec.ExecutorConfigurationException;
import io.ql3.worker.runtime.isolation.IsolationHost;
import io.ql3.worker.runtime.isolation.IsolationProbe;
import io.ql3.worker.transport.credentials.CredentialException;
import io.ql3.worker.transport.credentials.CredentialFiles;
import io.ql3.worker.transport.credentials.CredentialProvider;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Every command except {@code run}, through picocli. */
@Command(
    name = "ql3-worker",
    modelTransformer = CommandExitCodes.Help.class,
    // --help and --version on every command and subcommand (inherited attributes).
    scope = CommandLine.ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = Commands.VersionText.class,
    description = "The ql3 worker agent: runs offered work for a Cluster Control ingress.",
    subcommands = {
      Commands.Run.class,
      Commands.Version.class,
      Commands.CapabilityCmd.class,
      Commands.Check.class,
      StatusCommand.class,
      JournalCmd.class,
      CommandLine.HelpCommand.class
    })
final class Commands implements Callable<Integer> {
  static final String PROFILE_HELP =
      "edge or node; default: the configuration's profile key (when both are given they must agree)";

  /** {@code --profile} names a profile, or the command line is refused (64), as for {@code run}. */
  static final class ProfileName implements CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return AgentProfile.fromWireName(value).wireName();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCode.USAGE.code();
  }

  /**
   * The one version line ({@code version}, {@code --version} of every command, {@code run
   * --version}).
   */
  static String versionLine() {
    BuildInfo b = BuildInfo.load();
    return "ql3-worker "
        + b.version()
        + " (revision "
        + b.revision()
        + (b.dirty() ? ", modified tree" : "")
        + ", java "
        + System.getProperty("java.version")
        + ")";
  }

  /** picocli's {@code --version}. */
  static final class VersionText implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {versionLine()};
    }
  }

  static int execute(String[] args, PrintStream out, PrintStream err) {
    CommandLine cl = new CommandLine(new Commands());
    cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cl.setExitCodeExceptionMapper(
        t -> t instanceof ConfigException ? ExitCode.CONFIG.code() : ExitCode.SOFTWARE.code());
    cl.setParameterExceptionHandler(
        (ex, a) -> {
          ex.getCommandLine().getErr().println("ql3-worker: " + ex.getMessage());
          ex.getCommandLine().usage(ex.getCommandLine().getErr());
          return ExitCode.USAGE.code();
        });
    cl.setExecutionExceptionHandler(
        (ex, c, parse) -> {
          if (ex instanceof ConfigException ce) {
            c.getErr().println("ql3-worker: configuration refused: " + ce.getMessage());
            return ExitCode.CONFIG.code();
          }
          c.getErr().println("ql3-worker: " + ex);
          return ExitCode.SOFTWARE.code();
        });
    return cl.execute(args);
  }

  /**
   * Loads an enabled configuration or explains why it cannot be used for this command.
   *
   * @param profile {@code --profile}, or null: the configuration's {@code profile} key decides
   */
  static AgentConfig load(Path config, String profile) throws ConfigException {
    ConfigReader.Result r = new TomlConfigLoader().load(config, profile(profile));
    if (r instanceof ConfigReader.Disabled) {
      throw new ConfigException(
          config, "enabled", "the agent is disabled (enabled = false); nothing to do");
    }
    return ((ConfigReader.Enabled) r).config();
  }

  /**
   * The configuration whatever its {@code enabled}: for the commands that look at what a stopped
   * agent left (the journal, the status file).
   */
  static AgentConfig loadIgnoringGate(Path config, String profile) throws ConfigException {
    return new TomlConfigLoader().loadIgnoringGate(config, profile(profile));
  }

  /** {@code --profile}, already checked by {@link ProfileName}, or null when not given. */
  private static AgentProfile profile(String profile) {
    return profile == null ? null : AgentProfile.fromWireName(profile);
  }

  static Capability capability(AgentConfig c)
      throws ExecutorConfigurationException, ContractViolation {
    return AgentCapability.capability(c, AgentCapability.executors(c), BuildInfo.load());
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "run",
      description = "Run the agent (the service). See 'ql3-worker run --help'.")
  static final class Run implements Callable<Integer> {
    @CommandLine.Unmatched List<String> rest;

    @Override
    public Integer call() {
      // Reached only through picocli (e.g. 'help run'); Main dispatches 'run' itself.
      System.out.println(RunCommand.usage());
      return ExitCode.OK.code();
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "version",
      description = "Print the version and build revision.")
  static final class Version implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getOut().println(versionLine());
      return ExitCode.OK.code();
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "capability",
      description = "Print the canonical capability and its digest.")
  static final class CapabilityCmd implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--profile", description = PROFILE_HELP, converter = ProfileName.class)
    String profile;

    @Option(names = "--config", required = true, description = "the TOML configuration file")
    Path config;

    @Override
    public Integer call() throws Exception {
      AgentConfig c = load(config, profile);
      Capability cap;
      try {
        cap = capability(c);
      } catch (ExecutorConfigurationException | ContractViolation e) {
        spec.commandLine().getErr().println("ql3-worker: " + e.getMessage());
        return ExitCode.CONFIG.code();
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(new String(cap.toCanonicalBytes(), StandardCharsets.UTF_8));
      out.println(cap.digest());
      return ExitCode.OK.code();
    }
  }

  @Command(
      modelTransformer = CommandExitCodes.Help.class,
      name = "check",
      description = {
        "Validate the configuration and credential files (key/cert match, identity, expiry, permissions).",
        "With --connect, also one TLS handshake to the ingress (no register, no request)."
      })
  static final class Check implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--profile", description = PROFILE_HELP, converter = ProfileName.class)
    String profile;

    @Option(names = "--config", required = true, description = "the TOML configuration file")
    Path config;

    @Option(
        names = "--connect",
        description = {
          "also open one TLS 1.3 connection to the ingress with the configured",
          "credentials, verify the server as the agent does, print the negotiated protocol and close;",
          "nothing is registered and no request is sent"
        })
    boolean connect;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      AgentConfig c = load(config, profile);
      CredentialProvider p;
      out.println(
          "config: ok ("
              + c.source()
              + ", profile "
              + c.profile().wireName()
              + ", worker "
              + c.workerId()
              + ")");
      try {
        p =
            CredentialProvider.load(
                new CredentialFiles(
                    c.credentials().certificate(),
                    c.credentials().privateKey(),
                    c.credentials().trust(),
                    c.credentials().token()),
                c.workerId(),
                Clock.systemUTC(),
                new CredentialProvider.Settings(
                    Duration.ofSeconds(1),
                    Duration.ofDays(c.credentials().expiryWarningDays()),
                    CredentialProvider.Settings.defaults().checkInterval()));
        out.println("credentials: ok (" + p.tls() + ", " + p.daysToExpiry() + " days to expiry)");
        if (p.daysToExpiry() < c.credentials().expiryWarningDays()) {
          out.println("warning: the client certificate expires in " + p.daysToExpiry() + " days");
        }
      } catch (CredentialException e) {
        spec.commandLine().getErr().println("credentials: " + e.getMessage());
        return e.reason() == CredentialException.Reason.IDENTITY_MISMATCH
            ? ExitCode.CONFIG.code()
            : ExitCode.NOPERM.code();
      }
      try {
        Capability cap = capability(c);
        out.println(
            "capability: ok (" + cap.toCanonicalBytes().length + " bytes, " + cap.digest() + ")");
      } catch (ExecutorConfigurationException | ContractViolation e) {
        spec.commandLine().getErr().println("capability: " + e.getMessage());
        return ExitCode.CONFIG.code();
      }
      if (!WritableDirectories.report(c, out, spec.commandLine().getErr())) {
        return ExitCode.CANTCREAT.code();
      }
      IsolationProbe iso =
          IsolationProbe.of(
              c.execution().isolation(), IsolationHost.system(), c.execution().workDir());
      for (String line : iso.lines()) {
        out.println("isolation: " + line);
      }
      if (!iso.missing().isEmpty()) {
        for (String m : iso.missing()) {
          spec.commandLine().getErr().println("isolation: missing: " + m);
        }
        return ExitCode.CONFIG.code();
      }
      return connect
          ? new ConnectCheck(c, p, out, spec.commandLine().getErr()).run()
          : ExitCode.OK.code();
    }
  }
}
