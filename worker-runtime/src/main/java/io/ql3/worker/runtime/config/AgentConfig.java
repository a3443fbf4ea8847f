package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.isolation.IsolationSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A validated agent configuration for one profile. Every value is within its profile's bounds and
 * every path is absolute (relative paths in the file are resolved against the file's directory).
 * Built only by {@link ConfigReader}; there is no way to publish a slot count directly: capacity is
 * always derived from the journal.
 */
public record AgentConfig(
    Path source,
    AgentProfile profile,
    String workerId,
    Map<String, String> labels,
    Ingress ingress,
    Credentials credentials,
    Journal journal,
    Execution execution,
    Duration cadence,
    Optional<Path> statusFile,
    Optional<Path> metricsFile,
    LogFormat logFormat,
    io.ql3.worker.runtime.log.EventLog.Level logLevel) {

  public AgentConfig {
    labels = Map.copyOf(labels);
  }

  /** The ingress endpoint: an https URL without path, query or user info. */
  public record Ingress(
      URI url,
      String host,
      int port,
      Duration connectTimeout,
      java.util.Optional<io.ql3.worker.transport.HttpProxy> proxy) {}

  /** The credential files; read lazily by the credential provider, never by the configuration. */
  public record Credentials(
      Path certificate, Path privateKey, Path trust, Path token, int expiryWarningDays) {}

  /** The journal directory and the free-space floor below which no work is accepted. */
  public record Journal(Path dir, long freeSpaceFloorBytes) {}

  /** Execution limits, executor selection and run isolation. */
  public record Execution(
      Path workDir,
      int maxConcurrentRuns,
      int pullPage,
      int maxSpecBytes,
      List<String> executors,
      Set<Integer> permanentExitCodes,
      Duration drainTimeout,
      Duration longPoll,
      long outputLogBytes,
      IsolationSettings isolation) {

    public Execution {
      executors = List.copyOf(executors);
      permanentExitCodes = Set.copyOf(permanentExitCodes);
    }
  }

  /** How log lines are written to stdout. */
  public enum LogFormat {
    LOGFMT,
    JSON
  }
}
