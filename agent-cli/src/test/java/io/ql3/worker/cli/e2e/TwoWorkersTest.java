package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several workers per host, as ql3-worker@NAME instances run them: one configuration file each (its
 * own worker id, profile, journal, work and status files), two agent processes side by side, both
 * registered at once (before, every instance shared one journal and the second exited 75).
 */
class TwoWorkersTest {
  static final String SECOND = "edge-0002";

  @TempDir Path dir;

  private static boolean active(ControlPlaneFixture cp, String worker) {
    return cp.server.controlPlane().workers().stream()
        .filter(w -> w.workerId().equals(worker))
        .flatMap(w -> w.sessions().stream())
        .anyMatch(s -> s.status().equals("active"));
  }

  @Test
  void twoConfiguredWorkersRunSideBySide() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      cp.pki.create(List.of(ControlPlaneFixture.WORKER, SECOND));
      Path first = cp.agentConfig("");
      String text =
          Files.readString(first)
              .replaceFirst("enabled = true\n", "enabled = true\nprofile = \"edge\"\n");
      Path siteA =
          Files.writeString(
              first.resolveSibling("site-a.toml"),
              text.replace("dir = \"journal\"", "dir = \"site-a/journal\"")
                  .replace("\"runs\"", "\"site-a/runs\"")
                  .replace("\"status.json\"", "\"site-a/status.json\"")
                  .replace("\"ql3-worker.prom\"", "\"site-a/ql3-worker.prom\""));
      Path w2 = cp.pki.workerDir(SECOND);
      Path w1 = cp.pki.workerDir(ControlPlaneFixture.WORKER);
      Path siteB =
          Files.writeString(
              first.resolveSibling("site-b.toml"),
              text.replace("id = \"" + ControlPlaneFixture.WORKER + "\"", "id = \"" + SECOND + "\"")
                  .replace(w1.toString(), w2.toString())
                  .replace("dir = \"journal\"", "dir = \"site-b/journal\"")
                  .replace("\"runs\"", "\"site-b/runs\"")
                  .replace("\"status.json\"", "\"site-b/status.json\"")
                  .replace("\"ql3-worker.prom\"", "\"site-b/ql3-worker.prom\""));
      Files.createDirectories(first.resolveSibling("site-a"));
      Files.createDirectories(first.resolveSibling("site-b"));

      AgentProcess a = AgentProcess.start(siteA, "edge", dir.resolve("a.log"));
      AgentProcess b = AgentProcess.start(siteB, "edge", dir.resolve("b.log"));
      try {
        ControlPlaneFixture.await(
            "both registered\n" + a.output() + "\n" + b.output(),
            Duration.ofSeconds(90),
            () -> active(cp, ControlPlaneFixture.WORKER) && active(cp, SECOND));
        assertThat(a.process.isAlive()).isTrue();
        assertThat(b.process.isAlive()).isTrue();
        assertThat(b.output()).doesNotContain("journal.owned");
        for (String site : List.of("site-a", "site-b")) {
          ControlPlaneFixture.await(
              site + " status",
              Duration.ofSeconds(30),
              () -> Files.exists(first.resolveSibling(site).resolve("status.json")));
          assertThat(first.resolveSibling(site).resolve("journal")).isDirectory();
        }
        List<Views.WorkerView> workers = cp.server.controlPlane().workers();
        assertThat(workers)
            .extracting(Views.WorkerView::workerId)
            .contains(ControlPlaneFixture.WORKER, SECOND);
        assertThat(a.terminate(Duration.ofSeconds(60))).as(a.output()).isZero();
        assertThat(active(cp, SECOND))
            .as("the second worker is untouched by the first one's stop")
            .isTrue();
        assertThat(b.terminate(Duration.ofSeconds(60))).as(b.output()).isZero();
      } finally {
        for (AgentProcess p : List.of(a, b)) {
          if (p.process.isAlive()) {
            p.kill9AndRemoveItsCgroup();
          }
        }
      }
    }
  }
}
