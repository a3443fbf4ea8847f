package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.state.Views;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalInspector;
import io.ql3.worker.journal.RunFact;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real I/O error under the journal of a running agent process: the journal is an ext4 filesystem
 * ({@code data=journal}) on a loop device whose backing file is sparse and lives on a small tmpfs.
 * Once that tmpfs is full, the loop device fails the next write to a block never written before
 * (the kernel logs "critical space allocation error, dev loopN"), ext4 aborts its journal, and the
 * agent's next journal write or fsync fails with EIO or EROFS: not ENOSPC, so not the "disk full"
 * path (free space on the journal filesystem itself is plenty), but the journal's "write or force
 * failed, nothing retried". The agent must end with exit 74 (README) and nothing acknowledged may
 * be lost: every run the control plane saw completed is in the journal after the device is back,
 * and after a restart no run is reported succeeded that did not run to its end, and none runs
 * twice.
 *
 * <p>Losetup, mkfs.ext4 and mount need root (CI runs as root); elsewhere the test is skipped. This
 * kernel has no device-mapper, so a loop device is the real block device available here.
 */
class JournalIoErrorExitTest {

  @TempDir Path dir;

  @Test
  void aJournalWriteErrorUnderARunningAgentEndsInExit74AndLosesNothingAcknowledged()
      throws Exception {
    assumeTrue(
        tool("losetup") && tool("mkfs.ext4") && tool("mount"),
        "losetup, mkfs.ext4 and mount are needed");
    Path outer = Files.createDirectories(dir.resolve("outer"));
    assumeTrue(
        sh("mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", outer.toString()) == 0,
        "cannot mount a tmpfs here (needs root)");
    String loop = null;
    Path journal = null;
    List<AgentProcess> agents = new ArrayList<>();
    List<Long> runPids = new ArrayList<>();
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      // The journal filesystem is small: a floor of 1 MiB (its free space stays far above that; the
      // fault is below it, in the device).
      Files.writeString(
          config,
          Files.readString(config)
              .replace("dir = \"journal\"\n", "dir = \"journal\"\nfree-space-floor-mib = 1\n"));
      journal = Files.createDirectories(config.resolveSibling("journal"));
      Path backing = outer.resolve("backing");
      try (RandomAccessFile f = new RandomAccessFile(backing.toFile(), "rw")) {
        f.setLength(64L << 20); // sparse: a block takes tmpfs space only once written
      }
      loop = out("losetup", "--find", "--show", backing.toString()).trim();
      // A 16 MiB ext4 journal never zeroed (lazy_journal_init): the test writes far less than that,
      // so every commit after the fill writes blocks the backing file does not have yet.
      check(
          "mkfs.ext4",
          "-q",
          "-F",
          "-b",
          "4096",
          "-J",
          "size=16",
          "-E",
          "lazy_itable_init=1,lazy_journal_init=1,nodiscard",
          loop);
      check("mount", "-t", "ext4", "-o", "data=journal", loop, journal.toString());
      Files.setPosixFilePermissions(journal, PosixFilePermissions.fromString("rwx------"));
      Path marks = Files.createDirectories(dir.resolve("marks"));

      AgentProcess first = AgentProcess.start(config, "edge", dir.resolve("agent-1.log"));
      agents.add(first);
      first.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
      List<String> before = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        before.add(cp.submit(1, "process", spec(marks, "0")).get(0));
      }
      try {
        ControlPlaneFixture.await(
            "runs before the fault completed", Duration.ofSeconds(60), () -> cp.completed(before));
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage() + ": " + before.stream().map(cp::run).toList() + "\n" + first.output(),
            e);
      }
      assertThat(before).allMatch(id -> cp.run(id).outcome().equals("succeeded"));

      // A run in progress when the fault comes: its start is journaled (before its process is
      // launched).
      String running = cp.submit(1, "process", spec(marks, "0", 20)).get(0);
      first.awaitOutput("event=run.started run=" + running, Duration.ofSeconds(60));
      first.runPid(running).ifPresent(runPids::add);

      // The fault: the backing store is full. The next journal record the agent appends (the offer
      // of the run submitted below, the result of the running one, or anything before them) hits a
      // device error.
      fillUntilFull(outer.resolve("filler"));
      String during = cp.submit(1, "process", spec(marks, "0")).get(0);
      assertThat(first.process.waitFor(120, TimeUnit.SECONDS)).as(first.output()).isTrue();
      assertThat(first.process.exitValue())
          .as(first.output())
          .isEqualTo(io.ql3.worker.runtime.ExitCode.IOERR.code());
      assertThat(first.output())
          .contains("event=journal.failed")
          .contains("event=agent.exit code=74")
          .doesNotContain("No space left on device");

      // The device comes back (the filler goes, the loop device is attached again, ext4 replays).
      check("umount", journal.toString());
      check("losetup", "-d", loop);
      loop = null;
      Files.delete(outer.resolve("filler"));
      loop = out("losetup", "--find", "--show", backing.toString()).trim();
      check("mount", "-t", "ext4", "-o", "data=journal", loop, journal.toString());

      JournalInspector.Verification v =
          JournalInspector.verify(journal, ControlPlaneFixture.WORKER);
      assertThat(v.recoveryRequired()).as(v.toString()).isEmpty();
      JournalFacts facts = v.facts();
      // The run that was running has a journaled start and no result: uncertain, whatever its
      // process did.
      assertThat(v.wouldDeclareUncertain())
          .extracting(f -> f.key().runId())
          .as(v.toString())
          .contains(running);
      for (String id : before) {
        long attempt =
            Long.parseLong(cp.run(id).completion().replaceAll(".*\"attempt\":(\\d+).*", "$1"));
        assertThat(facts.recentCompletion(id, attempt).map(RunFact::result))
            .as("acknowledged run " + id + " in the journal: " + facts)
            .isPresent();
      }

      // A restart on the recovered journal: the run offered while the journal was failing is run
      // once (it was never journaled, so the new register lets the server offer it again).
      AgentProcess second = AgentProcess.start(config, "edge", dir.resolve("agent-2.log"));
      agents.add(second);
      second.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
      ControlPlaneFixture.await(
          "the run submitted during the fault completed",
          Duration.ofSeconds(90),
          () ->
              cp.run(during).state().equals("completed")
                  || cp.run(during).state().equals("quarantined"));
      ControlPlaneFixture.await(
          "the run that was running reported",
          Duration.ofSeconds(90),
          () -> cp.run(running).outcome() != null);
      assertThat(cp.run(running).outcome())
          .as("never reported succeeded: its result was never journaled\n" + second.output())
          .isEqualTo("uncertain");
      assertThat(second.output()).doesNotContain("event=run.started run=" + running);
      List<String> all = new ArrayList<>(before);
      all.add(during);
      all.add(running);
      for (String id : all) {
        Views.RunView r = cp.run(id);
        if ("succeeded".equals(r.outcome())) {
          long attempt = Long.parseLong(r.completion().replaceAll(".*\"attempt\":(\\d+).*", "$1"));
          assertThat(marks.resolve(id + "." + attempt + ".end"))
              .as("succeeded only after it ran: " + r)
              .exists();
        }
      }
      assertThat(cp.run(during).outcome()).as(second.output()).isEqualTo("succeeded");
      assertThat(marks.resolve("twice")).as("no attempt started twice").doesNotExist();
      assertThat(second.terminate(Duration.ofSeconds(60))).as(second.output()).isZero();
    } finally {
      for (AgentProcess a : agents) {
        a.process.destroyForcibly();
        a.process.waitFor(30, TimeUnit.SECONDS);
      }
      // The first agent's run leads its own process group: end it if it outlived everything
      // (systemd would).
      for (long pid : runPids) {
        ProcessHandle.of(pid)
            .ifPresent(
                h -> {
                  h.descendants().forEach(ProcessHandle::destroyForcibly);
                  h.destroyForcibly();
                });
      }
      if (journal != null) {
        sh("umount", journal.toString());
      }
      if (loop != null) {
        sh("losetup", "-d", loop);
      }
      sh("umount", "-l", outer.toString());
    }
  }

  /** A run that records its start (once per attempt: {@code set -C}) and its end, then exits. */
  private static String spec(Path marks, String code) {
    return spec(marks, code, 0);
  }

  /** The same, {@code seconds} between its start and its end. */
  private static String spec(Path marks, String code, int seconds) {
    String script =
        "set -C; m="
            + marks
            + "/$QL3_RUN_ID.$QL3_ATTEMPT; echo start > \\\"$m.start\\\" || echo \\\"$m\\\" >> "
            + marks
            + "/twice; sleep "
            + seconds
            + "; echo end > \\\"$m.end\\\"; exit "
            + code;
    return "{\"argv\":[\"/bin/sh\",\"-c\",\"" + script + "\"],\"cwd\":null,\"env\":{}}";
  }

  private static void fillUntilFull(Path file) throws IOException {
    byte[] chunk = new byte[1 << 16];
    java.util.Arrays.fill(chunk, (byte) 1);
    try (OutputStream o = Files.newOutputStream(file)) {
      while (true) {
        o.write(chunk);
      }
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
  }

  private static boolean tool(String name) {
    for (String d : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      if (Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return false;
  }

  private static int sh(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    return p.exitValue();
  }

  private static String out(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + text).isZero();
    return text;
  }

  private static void check(String... cmd) throws Exception {
    out(cmd);
  }
}
