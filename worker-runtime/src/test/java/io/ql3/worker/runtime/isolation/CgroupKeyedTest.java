package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flat-keyed interface files ({@code cpu.stat}, {@code cgroup.events}) read from ordinary files in
 * the kernel's format (the real files of this host lack the cpu and memory controllers).
 */
class CgroupKeyedTest {
  @TempDir Path dir;

  @Test
  void aKeyedValueIsTheDecimalAfterItsExactKey() throws Exception {
    Files.writeString(
        dir.resolve("cpu.stat"),
        "usage_usec 1234\nuser_usec 1000\nsystem_usec 234\nnr_periods 0\n");
    Cgroup cg = new Cgroup(dir);

    assertThat(cg.keyed("cpu.stat", "usage_usec")).isEqualTo(OptionalLong.of(1234));
    assertThat(cg.keyed("cpu.stat", "system_usec")).isEqualTo(OptionalLong.of(234));
    assertThat(cg.keyed("cpu.stat", "nr_periods")).isEqualTo(OptionalLong.of(0));
    assertThat(cg.keyed("cpu.stat", "usage")).as("a prefix of a key").isEmpty();
    assertThat(cg.keyed("cpu.stat", "nr_throttled")).as("absent").isEmpty();
    assertThat(cg.keyed("missing.file", "usage_usec")).as("no file").isEmpty();
  }

  @Test
  void aValueThatIsNotADecimalLongIsAbsentNotAnError() throws Exception {
    Files.writeString(
        dir.resolve("memory.stat"),
        "anon max\nfile -1\nkernel 12a\nsock 9999999999999999999\nshmem 9223372036854775807\n"
            + "slab \n");
    Cgroup cg = new Cgroup(dir);

    assertThat(cg.keyed("memory.stat", "anon")).isEmpty();
    assertThat(cg.keyed("memory.stat", "file")).isEmpty();
    assertThat(cg.keyed("memory.stat", "kernel")).isEmpty();
    assertThat(cg.keyed("memory.stat", "sock")).as("above Long.MAX_VALUE").isEmpty();
    assertThat(cg.keyed("memory.stat", "shmem")).isEqualTo(OptionalLong.of(Long.MAX_VALUE));
    assertThat(cg.keyed("memory.stat", "slab")).isEmpty();
  }

  @Test
  void aSingleNumberFileIsItsDecimalAndAnythingElseIsAbsent() throws Exception {
    Cgroup cg = new Cgroup(dir);
    Files.writeString(dir.resolve("memory.peak"), "4096\n");
    Files.writeString(dir.resolve("memory.max"), "max\n");
    Files.writeString(dir.resolve("pids.max"), "9999999999999999999\n");
    Files.writeString(dir.resolve("memory.min"), "9223372036854775807\n");

    assertThat(cg.single("memory.peak")).isEqualTo(OptionalLong.of(4096));
    assertThat(cg.single("memory.max")).as("max").isEmpty();
    assertThat(cg.single("pids.max")).as("19 digits above Long.MAX_VALUE").isEmpty();
    assertThat(cg.single("memory.min")).isEqualTo(OptionalLong.of(Long.MAX_VALUE));
    assertThat(cg.single("missing.file")).as("no file").isEmpty();
  }
}
