package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal on a small real filesystem (a 16 MiB tmpfs) that fills up while the agent runs: below
 * its free-space floor the agent publishes 0 slots and sends no pull (a long poll parked before may
 * still bring its one offer), fails nothing, and takes work again by itself once space returns.
 * Mounting needs root (CI runs as root).
 */
class JournalDiskFullTest {

  private static final Settings FAST = new Settings(5_000, 15_000, 15_000, 500, 64);

  @TempDir Path dir;

  @Test
  void belowTheFreeSpaceFloorNoWorkIsAcceptedAndItResumesWhenSpaceReturns() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1, FAST, false)) {
      Path config = cp.agentConfig("");
      Files.writeString(
          config,
          Files.readString(config)
              .replace("dir = \"journal\"\n", "dir = \"journal\"\nfree-space-floor-mib = 8\n"));
      Path journal = Files.createDirectories(config.resolveSibling("journal"));
      assumeTrue(mount(journal), "cannot mount a tmpfs here (needs root)");
      try {
        try (InProcessAgent agent = InProcessAgent.start(config)) {
          agent.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
          List<String> before = cp.submit(2, "noop", "{}");
          ControlPlaneFixture.await(
              "runs before the disk fills", Duration.ofSeconds(30), () -> cp.completed(before));

          // Fill the filesystem to 4 MiB free (< the 8 MiB floor).
          Path filler = journal.resolve("filler");
          long free = Files.getFileStore(journal).getUsableSpace();
          fill(filler, free - 4L * 1024 * 1024);
          ControlPlaneFixture.await(
              "0 slots published",
              Duration.ofSeconds(30),
              () ->
                  cp.sessions().stream()
                      .anyMatch(s -> s.status().equals("active") && s.availableSlots() == 0));
          long pullsAtZero = cp.answered("pull");
          List<String> during = cp.submit(3, "noop", "{}");
          long heartbeats = cp.answered("heartbeat");
          ControlPlaneFixture.await(
              "two more heartbeats at 0 slots",
              Duration.ofSeconds(30),
              () -> cp.answered("heartbeat") >= heartbeats + 2);
          // A long poll parked before the floor was crossed may still be answered (edge: one offer
          // per pull), and it is journaled and run; no pull is sent after it while below the floor.
          assertThat(cp.answered("pull"))
              .as("pulls below the floor")
              .isLessThanOrEqualTo(pullsAtZero + 1);
          long queued = during.stream().filter(id -> cp.run(id).state().equals("queued")).count();
          assertThat(queued)
              .as(() -> during.stream().map(id -> cp.run(id).toString()).toList().toString())
              .isGreaterThanOrEqualTo(during.size() - 1);
          assertThat(cp.sessions())
              .anyMatch(s -> s.status().equals("active") && s.availableSlots() == 0);

          Files.delete(filler);
          ControlPlaneFixture.await(
              "work resumes once space returns",
              Duration.ofSeconds(30),
              () -> cp.completed(during));
          for (String id : during) {
            assertThat(cp.run(id).outcome()).isEqualTo("succeeded");
          }
          assertThat(agent.shutdown(Duration.ofSeconds(60))).isZero();
        }
        assertThat(cp.server.auditor().violations()).isEmpty();
      } finally {
        unmount(journal);
      }
    }
  }

  private static void fill(Path file, long bytes) throws IOException {
    byte[] chunk = new byte[1 << 20];
    try (var out = Files.newOutputStream(file)) {
      for (long left = bytes; left > 0; left -= chunk.length) {
        out.write(chunk, 0, (int) Math.min(chunk.length, left));
      }
    }
  }

  private static boolean mount(Path at) throws Exception {
    Process p =
        new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", at.toString())
            .redirectErrorStream(true)
            .start();
    p.getInputStream().readAllBytes();
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  private static void unmount(Path at) throws Exception {
    Process p = new ProcessBuilder("umount", "-l", at.toString()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    p.waitFor(30, TimeUnit.SECONDS);
  }
}
