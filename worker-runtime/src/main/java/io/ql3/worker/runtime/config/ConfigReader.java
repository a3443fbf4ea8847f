package io.ql3.worker.runtime.config;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.WorkerId;
import io.ql3.worker.runtime.config.AgentConfig.Credentials;
import io.ql3.worker.runtime.config.AgentConfig.Execution;
import io.ql3.worker.runtime.config.AgentConfig.Ingress;
import io.ql3.worker.runtime.config.AgentConfig.Journal;
import io.ql3.worker.runtime.config.AgentConfig.LogFormat;
import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import io.ql3.worker.runtime.config.AgentProfile.ProfileDefaults;
import io.ql3.worker.runtime.exec.ProcessOutcomes;
import io.ql3.worker.runtime.isolation.IsolationMode;
import io.ql3.worker.runtime.isolation.IsolationSettings;
import io.ql3.worker.runtime.isolation.RunAs;
import io.ql3.worker.runtime.isolation.RunLimits;
import io.ql3.worker.runtime.log.EventLog;
import io.ql3.worker.transport.HttpProxy;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns a parsed configuration tree into an {@link AgentConfig}, strictly: unknown keys, wrong
 * types and out-of-bounds values are refused with the file and the dotted key named.
 *
 * <p>The tree is what a TOML (or any other) reader produced: tables are {@code Map<String,Object>},
 * arrays {@code List<Object>}, and scalars {@code String}, {@code Long}, {@code Boolean}; any other
 * scalar (a float, a date) is a wrong type. The reader never touches the file system: paths are
 * only resolved, so a disabled agent reads no credential and no path.
 */
public final class ConfigReader {
  private static final Pattern EXECUTOR_NAME = Pattern.compile("^[a-z][a-z0-9-]{0,31}$");
  private static final int MAX_LABELS = Capability.MAX_LABELS;
  private static final int MAX_LABEL_VALUE_CODE_POINTS = Capability.MAX_LABEL_VALUE_CHARS;
  static final long MIB = 1024L * 1024L;

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
    Path source = file.toAbsolutePath().normalize();
    Table root = new Table(source, "", tree);
    // The gate: nothing but `enabled` is looked at when the agent is disabled.
    boolean enabled = root.requiredBoolean("enabled");
    if (!enabled) {
      return new Disabled(source);
    }
    Path base = source.getParent();
    AgentProfile profile = readProfile(root, requested);
    ProfileDefaults d = profile.defaults();

    Table worker = root.requiredTable("worker");
    String workerId = worker.requiredString("id");
    if (!WorkerId.isValid(workerId)) {
      throw worker.error(
          "id", "'" + workerId + "' is not a valid worker id (" + WorkerId.PATTERN + ")");
    }
    Map<String, String> labels = readLabels(worker);
    worker.finish();

    Table ingressTable = root.requiredTable("ingress");
    Ingress ingress = readIngress(ingressTable);
    ingressTable.finish();

    Table cred = root.requiredTable("credentials");
    Credentials credentials =
        new Credentials(
            cred.requiredPath("certificate", base),
            cred.requiredPath("private-key", base),
            cred.requiredPath("trust", base),
            cred.requiredPath("token", base),
            (int) cred.optionalLong("expiry-warning-days", 7, new Bounds(1, 365)));
    cred.finish();

    Table journalTable = root.requiredTable("journal");
    Journal journal =
        new Journal(
            journalTable.requiredPath("dir", base),
            journalTable.optionalLong("free-space-floor-mib", 64, new Bounds(0, 1024 * 1024))
                * MIB);
    journalTable.finish();

    Table exec = root.requiredTable("execution");
    Execution execution = readExecution(exec, base, profile, d);
    exec.finish();

    Table cadenceTable = root.optionalTable("cadence");
    Duration cadence =
        Duration.ofMillis(
            cadenceTable.optionalLong("period-ms", d.cadence().toMillis(), d.cadenceBoundsMs()));
    cadenceTable.finish();

    Table status = root.optionalTable("status");
    Optional<Path> statusFile = status.optionalPath("file", base);
    status.finish();

    Table metrics = root.optionalTable("metrics");
    Optional<Path> metricsFile = metrics.optionalPath("file", base);
    metrics.finish();

    Table log = root.optionalTable("log");
    LogFormat logFormat = LogFormat.LOGFMT;
    Optional<String> format = log.optionalString("format");
    if (format.isPresent()) {
      switch (format.get()) {
        case "logfmt" -> logFormat = LogFormat.LOGFMT;
        case "json" -> logFormat = LogFormat.JSON;
        default ->
            throw log.error(
                "format", "must be \"logfmt\" or \"json\" (got \"" + format.get() + "\")");
      }
    }
    EventLog.Level logLevel = EventLog.Level.INFO;
    Optional<String> level = log.optionalString("level");
    if (level.isPresent()) {
      try {
        logLevel = EventLog.Level.fromText(level.get());
      } catch (IllegalArgumentException e) {
        throw log.error("level", e.getMessage());
      }
    }
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

  private static AgentProfile readProfile(Table root, AgentProfile requested)
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

  private static Map<String, String> readLabels(Table worker) throws ConfigException {
    Table labels = worker.optionalTable("labels");
    Map<String, String> out = new TreeMap<>();
    for (String key : labels.keys()) {
      if (!Capability.isValidLabelKey(key)) {
        throw labels.error(key, "label key does not match " + Capability.LABEL_KEY_PATTERN);
      }
      String value = labels.requiredString(key);
      if (value.codePointCount(0, value.length()) > MAX_LABEL_VALUE_CODE_POINTS) {
        throw labels.error(
            key, "label value is longer than " + MAX_LABEL_VALUE_CODE_POINTS + " characters");
      }
      if (value.indexOf('\0') >= 0) {
        throw labels.error(key, "label value contains NUL");
      }
      out.put(key, value);
    }
    if (out.size() > MAX_LABELS) {
      throw worker.error("labels", "at most " + MAX_LABELS + " labels (got " + out.size() + ")");
    }
    labels.finish();
    return out;
  }

  private static Ingress readIngress(Table t) throws ConfigException {
    String raw = t.requiredString("url");
    URI url;
    try {
      url = new URI(raw);
    } catch (URISyntaxException e) {
      throw t.error("url", "not a valid URL: " + e.getMessage());
    }
    if (!"https".equals(url.getScheme())) {
      throw t.error("url", "must be an https:// URL (got \"" + raw + "\")");
    }
    if (url.getHost() == null || url.getHost().isEmpty()) {
      throw t.error("url", "has no host (got \"" + raw + "\")");
    }
    if (url.getRawUserInfo() != null
        || url.getRawQuery() != null
        || url.getRawFragment() != null
        || !(url.getRawPath() == null
            || url.getRawPath().isEmpty()
            || url.getRawPath().equals("/"))) {
      throw t.error(
          "url",
          "must be scheme://host[:port] only: the agent builds every path itself (got \""
              + raw
              + "\")");
    }
    String host = url.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = url.getPort() == -1 ? 443 : url.getPort();
    Duration connect =
        Duration.ofMillis(t.optionalLong("connect-timeout-ms", 10_000, new Bounds(100, 120_000)));
    Optional<HttpProxy> proxy = Optional.empty();
    Optional<String> proxyUrl = t.optionalString("proxy");
    if (proxyUrl.isPresent()) {
      try {
        proxy = Optional.of(HttpProxy.parse(proxyUrl.get()));
      } catch (IllegalArgumentException e) {
        throw t.error("proxy", e.getMessage());
      }
    }
    return new Ingress(url, host, port, connect, proxy);
  }

  private static Execution readExecution(
      Table t, Path base, AgentProfile profile, ProfileDefaults d) throws ConfigException {
    Path workDir = t.requiredPath("work-dir", base);
    int slots =
        (int)
            t.optionalLong(
                "max-concurrent-runs", d.maxConcurrentRuns(), d.maxConcurrentRunsBounds(), profile);
    int page = (int) t.optionalLong("pull-page", d.pullPage(), d.pullPageBounds(), profile);
    int maxSpec = (int) t.optionalLong("max-spec-bytes", 65_536, new Bounds(1, 65_536));
    List<String> executors = t.optionalStringList("executors", List.of("process"));
    if (executors.isEmpty()) {
      throw t.error("executors", "must name at least one executor");
    }
    Set<String> seen = new HashSet<>();
    for (String e : executors) {
      if (!EXECUTOR_NAME.matcher(e).matches()) {
        throw t.error(
            "executors",
            "'" + e + "' is not a valid executor name (" + EXECUTOR_NAME.pattern() + ")");
      }
      if (!seen.add(e)) {
        throw t.error("executors", "'" + e + "' is listed twice");
      }
    }
    Set<Integer> permanent = new HashSet<>();
    for (long code : t.optionalLongList("permanent-exit-codes")) {
      if (code < 1 || code > 255) {
        throw t.error("permanent-exit-codes", "exit codes are 1..255 (got " + code + ")");
      }
      if (ProcessOutcomes.isSignalStatus((int) code)) {
        throw t.error(
            "permanent-exit-codes",
            code
                + " is in 129..192, the status of a process killed by signal "
                + (code - 128)
                + ": it is read as that signal, never as an exit code");
      }
      permanent.add((int) code);
    }
    Duration drain =
        Duration.ofMillis(
            t.optionalLong(
                "drain-timeout-ms",
                d.drainTimeout().toMillis(),
                new Bounds(0, 7L * 24 * 3_600_000)));
    Duration longPoll =
        Duration.ofMillis(
            t.optionalLong("long-poll-ms", d.longPoll().toMillis(), new Bounds(0, 60_000)));
    long logBytes = t.optionalLong("output-log-bytes", 8 * MIB, new Bounds(64 * 1024, 1024 * MIB));
    return new Execution(
        workDir,
        slots,
        page,
        maxSpec,
        executors,
        permanent,
        drain,
        longPoll,
        logBytes,
        readIsolation(t, profile, slots));
  }

  private static IsolationSettings readIsolation(Table t, AgentProfile profile, int slots)
      throws ConfigException {
    IsolationMode mode = IsolationMode.AUTO;
    Optional<String> m = t.optionalString("isolation");
    if (m.isPresent()) {
      try {
        mode = IsolationMode.fromConfigName(m.get());
      } catch (IllegalArgumentException e) {
        throw t.error("isolation", e.getMessage());
      }
    }
    if (t.get("run-uid-base") != null) {
      throw t.error(
          "run-uid-base",
          "is no longer read: runs execute as execution.run-user (default "
              + RunAs.DEFAULT_USER
              + ", uid and gid "
              + RunAs.PACKAGED_ID
              + " from the package) and the ids after it, one per slot; write run-user = <that"
              + " uid> instead");
    }
    String user = idOrName(t, "run-user").orElse(RunAs.DEFAULT_USER);
    Optional<String> group = idOrName(t, "run-group");
    RunAs runAs;
    try {
      runAs = new RunAs(user, group);
      runAs.checkFits(slots);
    } catch (IllegalArgumentException e) {
      throw t.error(
          e.getMessage().startsWith("run-group") ? "run-group" : "run-user", e.getMessage());
    }
    RunLimits d = profile.runLimits();
    OptionalLong memory = sizeOrMax(t, "memory-max", d.memoryMaxBytes(), RunLimits::parseMemory);
    OptionalLong pids = sizeOrMax(t, "pids-max", d.pidsMax(), RunLimits::parsePids);
    int weight = (int) t.optionalLong("cpu-weight", d.cpuWeight(), new Bounds(1, 10_000));
    try {
      return new IsolationSettings(mode, runAs, slots, new RunLimits(memory, pids, weight));
    } catch (IllegalArgumentException e) {
      throw t.error(
          e.getMessage().startsWith("memory") ? "memory-max" : "pids-max", e.getMessage());
    }
  }

  /** A user or group written as a name (string) or a numeric id (integer or digits). */
  private static Optional<String> idOrName(Table t, String key) throws ConfigException {
    Object v = t.get(key);
    if (v == null) {
      return Optional.empty();
    }
    if (v instanceof Number || v instanceof String) {
      return Optional.of(v.toString());
    }
    throw t.error(key, "must be a user or group name or a numeric id");
  }

  /** A limit written as "max", a string with a unit, or an integer. */
  private static OptionalLong sizeOrMax(
      Table t,
      String key,
      OptionalLong def,
      java.util.function.Function<String, OptionalLong> parse)
      throws ConfigException {
    Object v = t.get(key);
    if (v == null) {
      return def;
    }
    try {
      if (v instanceof Long l) {
        return parse.apply(Long.toString(l));
      }
      if (v instanceof String s) {
        return parse.apply(s);
      }
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw t.error(key, e.getMessage());
    }
    throw t.error(key, "must be \"max\", an integer or a string such as \"512M\"");
  }

  /** One table of the tree, remembering which keys were read so the rest can be refused. */
  private static final class Table {
    private final Path file;
    private final String prefix;
    private final Map<String, Object> values;
    private final Set<String> used = new HashSet<>();

    Table(Path file, String prefix, Map<String, Object> values) {
      this.file = file;
      this.prefix = prefix;
      this.values = values == null ? Map.of() : new LinkedHashMap<>(values);
    }

    String keyOf(String key) {
      return prefix.isEmpty() ? key : prefix + "." + key;
    }

    ConfigException error(String key, String problem) {
      return new ConfigException(file, keyOf(key), problem);
    }

    List<String> keys() {
      return new ArrayList<>(values.keySet());
    }

    private Object get(String key) {
      used.add(key);
      return values.get(key);
    }

    private Object required(String key, String what) throws ConfigException {
      Object v = get(key);
      if (v == null) {
        throw error(key, "missing (expected " + what + ")");
      }
      return v;
    }

    boolean requiredBoolean(String key) throws ConfigException {
      Object v = required(key, "true or false");
      if (!(v instanceof Boolean b)) {
        throw error(key, "must be true or false (got " + describe(v) + ")");
      }
      return b;
    }

    String requiredString(String key) throws ConfigException {
      Object v = required(key, "a string");
      if (!(v instanceof String s)) {
        throw error(key, "must be a string (got " + describe(v) + ")");
      }
      return s;
    }

    Optional<String> optionalString(String key) throws ConfigException {
      Object v = get(key);
      if (v == null) {
        return Optional.empty();
      }
      if (!(v instanceof String s)) {
        throw error(key, "must be a string (got " + describe(v) + ")");
      }
      return Optional.of(s);
    }

    Path requiredPath(String key, Path base) throws ConfigException {
      return toPath(key, requiredString(key), base);
    }

    Optional<Path> optionalPath(String key, Path base) throws ConfigException {
      Optional<String> s = optionalString(key);
      return s.isPresent() ? Optional.of(toPath(key, s.get(), base)) : Optional.empty();
    }

    private Path toPath(String key, String raw, Path base) throws ConfigException {
      if (raw.isEmpty() || raw.indexOf('\0') >= 0) {
        throw error(key, "must be a non-empty path");
      }
      try {
        return base.resolve(raw).normalize();
      } catch (java.nio.file.InvalidPathException e) {
        throw error(key, "not a valid path: " + e.getMessage());
      }
    }

    long optionalLong(String key, long def, Bounds bounds) throws ConfigException {
      return optionalLong(key, def, bounds, null);
    }

    long optionalLong(String key, long def, Bounds bounds, AgentProfile profile)
        throws ConfigException {
      Object v = get(key);
      if (v == null) {
        return def;
      }
      if (!(v instanceof Long l)) {
        throw error(key, "must be an integer (got " + describe(v) + ")");
      }
      if (!bounds.contains(l)) {
        throw error(
            key,
            "must be in "
                + bounds
                + (profile == null ? "" : " for profile " + profile.wireName())
                + " (got "
                + l
                + ")");
      }
      return l;
    }

    List<String> optionalStringList(String key, List<String> def) throws ConfigException {
      Object v = get(key);
      if (v == null) {
        return def;
      }
      List<String> out = new ArrayList<>();
      for (Object item : asList(key, v)) {
        if (!(item instanceof String s)) {
          throw error(key, "must be an array of strings (found " + describe(item) + ")");
        }
        out.add(s);
      }
      return out;
    }

    List<Long> optionalLongList(String key) throws ConfigException {
      Object v = get(key);
      if (v == null) {
        return List.of();
      }
      List<Long> out = new ArrayList<>();
      for (Object item : asList(key, v)) {
        if (!(item instanceof Long l)) {
          throw error(key, "must be an array of integers (found " + describe(item) + ")");
        }
        out.add(l);
      }
      return out;
    }

    private List<?> asList(String key, Object v) throws ConfigException {
      if (!(v instanceof List<?> list)) {
        throw error(key, "must be an array (got " + describe(v) + ")");
      }
      return list;
    }

    Table requiredTable(String key) throws ConfigException {
      Object v = required(key, "a table [" + keyOf(key) + "]");
      return asTable(key, v);
    }

    Table optionalTable(String key) throws ConfigException {
      Object v = get(key);
      return v == null ? new Table(file, keyOf(key), Map.of()) : asTable(key, v);
    }

    @SuppressWarnings("unchecked")
    private Table asTable(String key, Object v) throws ConfigException {
      if (!(v instanceof Map<?, ?> m)) {
        throw error(key, "must be a table (got " + describe(v) + ")");
      }
      return new Table(file, keyOf(key), (Map<String, Object>) m);
    }

    /** Refuses every key that was not read: a typo must not be silently ignored. */
    void finish() throws ConfigException {
      for (String key : values.keySet()) {
        if (!used.contains(key)) {
          throw error(key, "unknown key");
        }
      }
    }

    private static String describe(Object v) {
      if (v instanceof String) {
        return "a string";
      }
      if (v instanceof Long) {
        return "an integer";
      }
      if (v instanceof Boolean) {
        return "a boolean";
      }
      if (v instanceof List) {
        return "an array";
      }
      if (v instanceof Map) {
        return "a table";
      }
      return "a " + v.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " value";
    }
  }
}
