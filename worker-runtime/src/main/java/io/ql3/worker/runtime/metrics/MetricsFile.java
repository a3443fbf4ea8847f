package io.ql3.worker.runtime.metrics;

import io.ql3.worker.runtime.status.AtomicFile;
import io.ql3.worker.runtime.status.StatusSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The Prometheus text file ({@code *.prom}) for node_exporter's textfile collector, replaced
 * atomically so a scrape never reads half of it. Gauges come from the status snapshot (one owner
 * per fact: the same numbers the status file shows), counters from {@link AgentMetrics}.
 */
public final class MetricsFile {
  private static final List<String> SESSION_STATES =
      List.of(
          "none", "registering", "active", "suspended", "draining", "offline", "fenced", "expired");

  private final AtomicFile file;

  public MetricsFile(Path path) {
    this.file = new AtomicFile(path, false, AtomicFile.Readers.ANYONE);
  }

  public Path path() {
    return file.path();
  }

  /** What the process is: constant for its life ({@code ql3_worker_build_info}). */
  public record Build(String version, String revision, String java, String profile) {}

  /**
   * @param certificateNotAfter the client certificate's notAfter (for the expiry timestamp)
   */
  public void write(
      StatusSnapshot s,
      AgentMetrics counters,
      long credentialGeneration,
      Build build,
      Instant certificateNotAfter)
      throws IOException {
    file.replace(
        render(s, counters, credentialGeneration, build, certificateNotAfter)
            .getBytes(StandardCharsets.UTF_8));
  }

  static String render(
      StatusSnapshot s,
      AgentMetrics counters,
      long credentialGeneration,
      Build build,
      Instant certificateNotAfter) {
    StringBuilder b = new StringBuilder(4096);
    b.append(
        "# HELP ql3_worker_build_info Version, git revision, Java version and profile of the running agent; always 1.\n");
    b.append("# TYPE ql3_worker_build_info gauge\n");
    b.append("ql3_worker_build_info{version=\"")
        .append(label(build.version()))
        .append("\",revision=\"")
        .append(label(build.revision()))
        .append("\",java=\"")
        .append(label(build.java()))
        .append("\",profile=\"")
        .append(label(build.profile()))
        .append("\"} 1\n");
    b.append("# HELP ql3_worker_session_state 1 for the session's current state.\n");
    b.append("# TYPE ql3_worker_session_state gauge\n");
    for (String state : SESSION_STATES) {
      b.append("ql3_worker_session_state{state=\"")
          .append(state)
          .append("\"} ")
          .append(state.equals(s.sessionState()) ? 1 : 0)
          .append('\n');
    }
    gauge(
        b,
        "ql3_worker_session_generation",
        "Generation of the current or last session.",
        s.generation());
    gauge(b, "ql3_worker_session_version", "Version of the current or last session.", s.version());
    gauge(
        b,
        "ql3_worker_lease_remaining_seconds",
        "Time left on the local lease.",
        FixedPoint.of(s.leaseRemainingMs(), 3));
    gauge(
        b,
        "ql3_worker_available_slots",
        "Slots published (derived from the journal).",
        s.availableSlots());
    gauge(b, "ql3_worker_max_concurrent_runs", "Configured slot budget.", s.maxConcurrentRuns());
    gauge(b, "ql3_worker_runs_active", "Runs executing now.", s.runsActive());
    gauge(
        b,
        "ql3_worker_pending_completions",
        "Recorded results not yet acknowledged.",
        s.pendingCompletions());
    gauge(
        b,
        "ql3_worker_connections_opened_total",
        "TLS connections opened (one handshake each).",
        s.connectionsOpened());
    gauge(
        b,
        "ql3_worker_credential_generation",
        "Credential sets installed so far (reloads + 1).",
        credentialGeneration);
    gauge(
        b,
        "ql3_worker_certificate_expiry_timestamp_seconds",
        "When the client certificate expires (notAfter), Unix time in seconds.",
        certificateNotAfter.getEpochSecond());
    counters.render(b);
    return b.toString();
  }

  /** Label value escaping of the text format: backslash, double quote, newline. */
  private static String label(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  private static void gauge(StringBuilder b, String name, String help, Object value) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(name.endsWith("_total") ? " counter\n" : " gauge\n");
    b.append(name).append(' ').append(value).append('\n');
  }
}
