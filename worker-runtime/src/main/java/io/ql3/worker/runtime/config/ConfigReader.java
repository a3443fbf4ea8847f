package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentConfig.Credentials;
import io.ql3.worker.runtime.config.AgentConfig.Execution;
import io.ql3.worker.runtime.config.AgentConfig.Ingress;
import io.ql3.worker.runtime.config.AgentConfig.Journal;
import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import io.ql3.worker.runtime.config.AgentProfile.ProfileDefaults;
import io.ql3.worker.runtime.log.EventLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a parsed configuration tree into an {@link AgentConfig}, strictly: unknown keys, wrong
 * types and out-of-bounds values are refused with the file and the dotted key named.
 *
 * <p>The tree is what a TOML (or any other) reader produced: tables are {@code Map<String,Object>},
 * arrays {@code List<Object>}, and scalars {@code String}, {@code Long}, {@code Boolean}; any other
 * scalar (a float, a date) is a wrong type. The reader never touches the file system: paths are
 * only resolved, so a disabled agent reads no credential and no path.
 *
 * <p>This class holds the gate ({@code enabled}), the profile, the order in which the tables are
 * read, and the one-key tables ({@code [cadence]}, {@code [status]}, {@code [metrics]}); each other
 * table has its own reader ({@link WorkerReader}, {@link TransportReader}, {@link JournalReader},
 * {@link ExecutionReader} with {@link IsolationReader}, {@link LogReader}), and the typed values
 * and unknown-key checks are {@link ConfigTable}'s.
 */
public final class ConfigReader {
  /** What the configuration asks for: to stay stopped, or to run with this configuration. */
  public sealed interface Result permits Disabled, Enabled {}

  /** {@code enabled = false}: the agent exits 0 before reading anything else. */
  public record Disabled(Path source) implements Result {}

  /** {@code enabled = true} and every other key valid. */
  public record Enabled(AgentConfig config) implements Result {}

  private ConfigReader() {}

  /**
   * Reads the tree of {@code file}. The profile is the file's {@code profile} key; {@code
   * requested} (from {@code --profile}) may stand in for it when the key is absent and must agree
   * with it when both are given.
   *
   * @param requested the profile asked for on the command line, or null
   * @param file the configuration file the tree came from (absolute or relative to the working
   *     directory); relative paths inside are resolved against its parent directory
   */
  public static Result read(Map<String, Object> tree, Path file, AgentProfile requested)
      throws ConfigException {
    return read(tree, file, requested, Gate.HONOURED);
  }

  /** Whether {@code enabled = false} stops the reading. */
  public enum Gate {
    /** It does: {@code run}, which must not read a credential or a path of a disabled agent. */
    HONOURED,
    /**
     * It does not: the commands that look at what a stopped agent left (the journal, the status
     * file) read every key of a disabled configuration too, and find it {@link Enabled} or refuse
     * it as for an enabled one.
     */
    IGNORED
  }

  public static Result read(Map<String, Object> tree, Path file, AgentProfile requested, Gate gate)
      throws ConfigException {
    Path source = file.toAbsolutePath().normalize();
    ConfigTable root = new ConfigTable(source, "", tree);
    // The gate: nothing but `enabled` is looked at when the agent is disabled.
    boolean enabled = root.requiredBoolean("enabled");
    if (!enabled && gate == Gate.HONOURED) {
      return new Disabled(source);
    }
    Path base = source.getParent();
    AgentProfile profile = readProfile(root, requested);
    ProfileDefaults d = profile.defaults();

    ConfigTable worker = root.requiredTable("worker");
    String workerId = WorkerReader.id(worker);
    Map<String, String> labels = WorkerReader.labels(worker);
    worker.finish();

    ConfigTable ingressTable = root.requiredTable("ingress");
    Ingress ingress = TransportReader.ingress(ingressTable);
    ingressTable.finish();

    ConfigTable cred = root.requiredTable("credentials");
    Credentials credentials = TransportReader.credentials(cred, base);
    cred.finish();

    ConfigTable journalTable = root.requiredTable("journal");
    Journal journal = JournalReader.journal(journalTable, base);
    journalTable.finish();

    ConfigTable exec = root.requiredTable("execution");
    Execution execution = ExecutionReader.execution(exec, base, profile, d);
    exec.finish();

    ConfigTable cadenceTable = root.optionalTable("cadence");
    Duration cadence =
        Duration.ofMillis(
            cadenceTable.optionalLong("period-ms", d.cadence().toMillis(), d.cadenceBoundsMs()));
    cadenceTable.finish();

    ConfigTable status = root.optionalTable("status");
    Optional<Path> statusFile = status.optionalPath("file", base);
    status.finish();

    ConfigTable metrics = root.optionalTable("metrics");
    Optional<Path> metricsFile = metrics.optionalPath("file", base);
    metrics.finish();

    ConfigTable log = root.optionalTable("log");
    LogFormat logFormat = LogReader.format(log);
    EventLog.Level logLevel = LogReader.level(log);
    log.finish();
    root.finish();

    return new Enabled(
        new AgentConfig(
            source,
            profile,
            workerId,
            labels,
            ingress,
            credentials,
            journal,
            execution,
            cadence,
            statusFile,
            metricsFile,
            logFormat,
            logLevel));
  }

  private static AgentProfile readProfile(ConfigTable root, AgentProfile requested)
      throws ConfigException {
    Optional<String> named = root.optionalString("profile");
    if (named.isEmpty()) {
      if (requested == null) {
        throw root.error(
            "profile",
            "is not set: add profile = \"edge\" or profile = \"node\" (or pass --profile)");
      }
      return requested;
    }
    AgentProfile p;
    try {
      p = AgentProfile.fromWireName(named.get());
    } catch (IllegalArgumentException e) {
      throw root.error("profile", e.getMessage());
    }
    if (requested != null && requested != p) {
      throw root.error(
          "profile",
          "is \""
              + p.wireName()
              + "\" but --profile "
              + requested.wireName()
              + " was given: they must agree (drop --profile, or fix the file)");
    }
    return p;
  }
}
