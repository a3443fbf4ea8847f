package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kill at the end of a run, against a directory of ordinary files in the kernel's format (this
 * host's cgroup v2 tree kills real processes in RunIsolationTest; what is asserted here is which
 * file is written).
 */
class RunCgroupKillTest {
  @TempDir Path dir;

  @Test
  void aPopulatedCgroupIsKilledThroughCgroupKill() throws Exception {
    Files.writeString(dir.resolve("cgroup.events"), "populated 1\nfrozen 0\n");
    Files.writeString(dir.resolve("cgroup.kill"), "");

    new RunCgroup(new Cgroup(dir)).kill();

    assertThat(Files.readString(dir.resolve("cgroup.kill"))).isEqualTo("1");
  }

  @Test
  void anEmptyCgroupIsNotWrittenTo() throws Exception {
    Files.writeString(dir.resolve("cgroup.events"), "populated 0\nfrozen 0\n");
    Files.writeString(dir.resolve("cgroup.kill"), "");

    new RunCgroup(new Cgroup(dir)).kill();

    assertThat(Files.readString(dir.resolve("cgroup.kill"))).isEmpty();
  }

  @Test
  void aCgroupWhoseEventsCannotBeReadIsKilledAnyway() throws Exception {
    Files.writeString(dir.resolve("cgroup.kill"), "");

    new RunCgroup(new Cgroup(dir)).kill();

    assertThat(Files.readString(dir.resolve("cgroup.kill"))).isEqualTo("1");
  }
}
