package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import io.ql3.worker.runtime.isolation.CgroupLocation;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged unit's situation without systemd: the agent is <em>not</em> root, holds exactly the
 * unit's ambient capabilities ({@code CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL}, given by {@code
 * setpriv} the way systemd's {@code AmbientCapabilities=} does) and owns a delegated cgroup (a
 * cgroup v2 directory chowned to it, as {@code Delegate=yes} does). This machine has no systemd as
 * PID 1, so this is how the production path runs for real here: the switch to the run uids, signals
 * to them, their work directories made and removed as them, the run cgroups. Needs root (to set the
 * scene) and a writable cgroup v2 hierarchy.
 */
class NonRootAgentIsolationTest {

  private static final String CAPS = "+setuid,+setgid,+setpcap,+kill";

  @TempDir Path dir;

  private Path delegated;

  @AfterEach
  void removeDelegatedCgroup() throws Exception {
    if (delegated == null || !Files.isDirectory(delegated)) {
      return;
    }
    Path kill = delegated.resolve("cgroup.kill");
    if (Files.exists(kill)) {
      Files.writeString(kill, "1");
    }
    try (Stream<Path> all = Files.walk(delegated)) {
      for (Path d : all.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
        for (int i = 0; i < 200 && Files.exists(d); i++) {
          try {
            Files.delete(d);
          } catch (IOException busy) {
            Thread.sleep(10); // killed processes take a moment to leave
          }
        }
      }
    }
  }

  @Test
  void aNonRootAgentWithTheUnitsCapabilitiesRunsWorkAsRunUidsAndRemovesWhatTheyLeave()
      throws Exception {
    assumeTrue(
        Files.readAllLines(Path.of("/proc/self/status")).stream()
            .anyMatch(l -> l.matches("Uid:\\s+0\\s+0\\s+0\\s+0")),
        "setting up a non-root agent needs root (CI runs as root)");
    Optional<CgroupLocation> where =
        CgroupLocation.find(Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"));
    assumeTrue(
        where.isPresent() && Files.isWritable(where.get().own()), "no writable cgroup v2 here");
    long agentUid = 4_600_000 + (ProcessHandle.current().pid() % 100_000) * 16;
    long runBase = agentUid + 1;

    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("isolation = \"required\"\nrun-user = " + runBase);
      String classpath = copyClassPath(dir.resolve("classpath"));
      // Everything of the agent's is the agent's (as the package's tmpfiles and install-credentials
      // make it).
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : all.toList()) {
          Files.setAttribute(p, "unix:uid", (int) agentUid, LinkOption.NOFOLLOW_LINKS);
          Files.setAttribute(p, "unix:gid", (int) agentUid, LinkOption.NOFOLLOW_LINKS);
        }
      }
      Files.setAttribute(dir, "unix:mode", 0711);
      delegated = where.get().own().resolve("ql3-e2e-delegated-" + ProcessHandle.current().pid());
      Files.createDirectory(delegated);
      for (String f : List.of("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads")) {
        Files.setAttribute(delegated.resolve(f), "unix:uid", (int) agentUid);
      }

      String java = ProcessHandle.current().info().command().orElse("java");
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  "/bin/sh",
                  "-c",
                  "echo $$ > \"$0\" && exec \"$@\"",
                  delegated.resolve("cgroup.procs").toString(),
                  "/usr/bin/setpriv",
                  "--reuid=" + agentUid,
                  "--regid=" + agentUid,
                  "--clear-groups",
                  "--inh-caps=-all," + CAPS,
                  "--ambient-caps=" + CAPS,
                  "--bounding-set=-all," + CAPS,
                  "--",
                  java,
                  "-XX:+UseSerialGC",
                  "-Xmx64m",
                  "-cp",
                  classpath,
                  "io.ql3.worker.cli.Main",
                  "run",
                  "--profile",
                  "edge",
                  "--config",
                  config.toString()));
      Path log = Files.createTempFile("ql3-nonroot-agent", ".log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment()
          .keySet()
          .removeIf(
              k ->
                  k.equals("NOTIFY_SOCKET")
                      || k.startsWith("WATCHDOG_")
                      || k.equals("JOURNAL_STREAM")
                      || k.equalsIgnoreCase("HTTPS_PROXY"));
      Process agent = pb.start();
      try {
        ControlPlaneFixture.await(
            "agent active\n" + Files.readString(log),
            Duration.ofSeconds(90),
            () -> read(log).contains("to=ACTIVE") || !agent.isAlive());
        String out = read(log);
        assertThat(out)
            .as(out)
            .contains("to=ACTIVE")
            .contains("event=isolation.active")
            .contains("uids " + runBase + "-" + (runBase + 1))
            .contains(delegated.toString());
        assertThat(Files.readString(Path.of("/proc/" + agent.pid() + "/status")))
            .containsPattern("Uid:\\s+" + agentUid + "\\s")
            .contains("CapEff:\t00000000000001e0");

        Path key = ControlPlaneFixture.configuredPath(config, "private-key");
        String probe =
            "id -u; cat '"
                + key
                + "' 2>&1; kill -0 "
                + agent.pid()
                + " 2>&1;"
                + " grep -E '^Cap(Eff|Prm|Amb)' /proc/self/status; mkdir -p deep/locked && chmod 000 deep/locked; exit 0";
        List<String> ids =
            cp.submit(
                4,
                "process",
                "{\"argv\":[\"/bin/sh\",\"-c\",\""
                    + probe.replace("\"", "\\\"")
                    + "\"],\"cwd\":\"sub\",\"env\":{}}");
        ControlPlaneFixture.await(
            "runs complete\n" + read(log), Duration.ofSeconds(90), () -> cp.completed(ids));
        for (String id : ids) {
          Views.RunView v = cp.run(id);
          assertThat(v.outcome()).as(v.toString()).isEqualTo("succeeded");
          assertThat(v.completion())
              .as(v.toString())
              .containsPattern("\"outputTail\":\"(" + runBase + "|" + (runBase + 1) + ")\\\\n")
              .contains("client.key: Permission denied")
              .containsPattern("kill: .*(Operation not permitted)|Operation not permitted")
              .contains("CapEff:\\t0000000000000000")
              .contains("CapAmb:\\t0000000000000000")
              .doesNotContain("PRIVATE KEY");
        }
        Path runs = config.resolveSibling("runs").resolve("runs");
        try (Stream<Path> left = Files.list(runs)) {
          assertThat(left.toList())
              .as("work directories (with a mode-000 directory each) removed by the run uids")
              .isEmpty();
        }
        assertThat(read(log)).doesNotContain("could not be removed");

        agent.destroy(); // SIGTERM: drain, offline
        assertThat(agent.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(agent.exitValue()).as(read(log)).isZero();
      } finally {
        agent.destroyForcibly();
        System.out.println(read(log));
      }
      assertThat(cp.sessions()).allMatch(s -> s.status().equals("offline"));
      assertThat(cp.server.auditor().violations()).isEmpty();
    }
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "<" + e + ">";
    }
  }

  /**
   * The test class path, copied where a non-root uid can read it (the Maven repository is under
   * /root).
   */
  private static String copyClassPath(Path to) throws IOException {
    Files.createDirectories(to);
    List<String> copied = new ArrayList<>();
    int i = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path from = Path.of(entry);
      Path target = to.resolve(++i + "-" + from.getFileName());
      if (Files.isRegularFile(from)) {
        Files.copy(from, target);
      } else if (Files.isDirectory(from)) {
        try (Stream<Path> all = Files.walk(from)) {
          for (Path p : all.toList()) {
            Path t = target.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(t);
            } else {
              Files.copy(p, t);
            }
          }
        }
      } else {
        continue;
      }
      copied.add(target.toString());
    }
    return String.join(File.pathSeparator, copied);
  }
}
