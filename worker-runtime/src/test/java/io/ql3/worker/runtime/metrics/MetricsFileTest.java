package io.ql3.worker.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.AnswerKind;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.runtime.status.StatusSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsFileTest {
  static final MetricsFile.Build BUILD =
      new MetricsFile.Build("1.2.3", "abc\"def", "17.0.15", "edge");
  static final Instant NOT_AFTER = Instant.parse("2027-01-01T00:00:00Z");

  private static String render(AgentMetrics m) {
    StatusSnapshot s =
        StatusSnapshot.beforeSession(Instant.EPOCH, 1, "edge-0001", "edge", "running", null);
    return MetricsFile.render(s, m, 1, BUILD, NOT_AFTER);
  }

  @Test
  void everyCounterSeriesExistsAtZeroBeforeItsFirstEvent() {
    String text = render(new AgentMetrics());
    for (Operation op : Operation.values()) {
      for (AnswerKind k : AnswerKind.values()) {
        assertThat(text)
            .contains(
                "ql3_worker_requests_total{operation=\""
                    + op.wireName()
                    + "\",result=\""
                    + k.name().toLowerCase(Locale.ROOT)
                    + "\"} 0\n");
      }
      assertThat(text)
          .contains("ql3_worker_request_seconds_count{operation=\"" + op.wireName() + "\"} 0\n");
    }
    for (Outcome o : Outcome.values()) {
      assertThat(text)
          .contains(
              "ql3_worker_runs_total{outcome=\"" + o.name().toLowerCase(Locale.ROOT) + "\"} 0\n");
    }
  }

  @Test
  void anEventCountsOnItsExistingSeries() {
    AgentMetrics m = new AgentMetrics();
    m.runOutcome("SUCCEEDED");
    m.request("pull", AnswerKind.SUCCESS, 2_000_000);
    String text = render(m);
    assertThat(text)
        .contains("ql3_worker_runs_total{outcome=\"succeeded\"} 1\n")
        .contains("ql3_worker_requests_total{operation=\"pull\",result=\"success\"} 1\n")
        .contains("ql3_worker_request_seconds_sum{operation=\"pull\"} 0.002000\n");
    assertThat(text.split("ql3_worker_runs_total\\{outcome=\"succeeded\"}", -1)).hasSize(2);
  }

  @Test
  void buildInfoAndTheExpiryAsAUnixTimestamp() {
    String text = render(new AgentMetrics());
    assertThat(text)
        .contains("# TYPE ql3_worker_build_info gauge\n")
        .contains(
            "ql3_worker_build_info{version=\"1.2.3\",revision=\"abc\\\"def\",java=\"17.0.15\",profile=\"edge\"} 1\n")
        .contains(
            "ql3_worker_certificate_expiry_timestamp_seconds " + NOT_AFTER.getEpochSecond() + "\n")
        .doesNotContain("expiry_days");
  }

  /**
   * node_exporter runs as another user and must read the file: it is 0644 (in the 0755 runtime
   * directory docs/install.md gives it). As root, another user really reads it.
   */
  @Test
  void anotherUserCanReadTheMetricsFile(@TempDir Path dir) throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    MetricsFile file = new MetricsFile(dir.resolve("edge.prom"));
    StatusSnapshot s =
        StatusSnapshot.beforeSession(Instant.EPOCH, 1, "edge-0001", "edge", "running", null);
    file.write(s, new AgentMetrics(), 1, BUILD, NOT_AFTER);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())))
        .isEqualTo("rw-r--r--");
    if (!"root".equals(System.getProperty("user.name"))) {
      return; // switching to another user needs root; the mode above is the whole rule
    }
    Process cat =
        new ProcessBuilder(
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "cat",
                file.path().toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(cat.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(cat.exitValue()).as(out).isZero();
    assertThat(out).startsWith("# HELP ql3_worker_build_info");
  }

  /** The install guide's metric table lists every result class the requests counter can carry. */
  @Test
  void theInstallGuideListsEveryRequestResult() throws Exception {
    String row =
        Files.readString(Path.of("..", "docs", "install.md"))
            .lines()
            .filter(l -> l.startsWith("| `ql3_worker_requests_total`"))
            .findFirst()
            .orElseThrow();
    String listed = row.substring(row.indexOf("`result`: ") + "`result`: ".length());
    listed = listed.substring(0, listed.indexOf(" |"));
    assertThat(listed.split(", "))
        .containsExactly(
            java.util.Arrays.stream(AnswerKind.values())
                .map(k -> k.name().toLowerCase(Locale.ROOT))
                .toArray(String[]::new));
  }
}
