package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's cgroup layout and the per-run limit files, against a fake cgroupfs: a directory of
 * ordinary files standing in for the kernel's (this host's cgroup v2 lacks the memory, pids and cpu
 * controllers, so their files cannot be written for real here; RunIsolationTest covers the real
 * hierarchy).
 */
class CgroupSubtreeTest {

  @TempDir Path fs;

  private Path fakeCgroup(Path dir, String controllers, String subtreeControl) throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("cgroup.controllers"), controllers + "\n");
    Files.writeString(dir.resolve("cgroup.subtree_control"), subtreeControl + "\n");
    Files.writeString(dir.resolve("cgroup.procs"), "");
    Files.writeString(dir.resolve("cgroup.events"), "populated 0\nfrozen 0\n");
    return dir;
  }

  @Test
  void theAgentLeavesItsUnitCgroupAndRunsGetTheConfiguredLimits() throws Exception {
    Path mount = fakeCgroup(fs.resolve("cg"), "cpu io memory pids", "");
    Path unit =
        fakeCgroup(mount.resolve("system.slice/ql3-worker@edge.service"), "cpu memory pids", "");
    Files.writeString(unit.resolve("pids.max"), "8192\n"); // the unit's TasksMax=
    // What the kernel shows in RUNS once the unit enabled the controllers for its children (its
    // subtree_control starts empty: only the agent's enable step can fill it).
    fakeCgroup(unit.resolve("ql3-runs-abcd"), "cpu memory pids", "");
    RunLimits limits =
        new RunLimits(OptionalLong.of(512 * RunLimits.MIB), OptionalLong.of(512), 50);

    CgroupSubtree tree =
        CgroupSubtree.open(new CgroupLocation(mount, unit), 4242, "ql3-runs-abcd", limits);

    assertThat(Files.readString(unit.resolve("ql3-agent/cgroup.procs"))).isEqualTo("4242");
    assertThat(Files.readString(unit.resolve("cgroup.subtree_control")))
        .isEqualTo("+cpu +memory +pids");
    assertThat(tree.controllers()).containsExactly("cpu", "memory", "pids");
    assertThat(Files.readString(unit.resolve("ql3-runs-abcd/pids.max")))
        .as("all runs: TasksMax - 256")
        .isEqualTo("7936");

    RunCgroup run = tree.newRun("run/01:x", 3);
    Path dir = run.dir();
    assertThat(dir.getParent()).isEqualTo(unit.resolve("ql3-runs-abcd"));
    assertThat(dir.getFileName().toString()).isEqualTo("run_01_x@3.1");
    assertThat(Files.readString(dir.resolve("memory.max"))).isEqualTo("536870912");
    assertThat(Files.readString(dir.resolve("memory.oom.group"))).isEqualTo("1");
    assertThat(Files.readString(dir.resolve("pids.max"))).isEqualTo("512");
    assertThat(Files.readString(dir.resolve("cpu.weight"))).isEqualTo("50");

    Path swappy = unit.resolve("ql3-runs-abcd/with-swap@1.2");
    Files.createDirectories(swappy);
    Files.writeString(swappy.resolve("memory.swap.max"), "max");
    RunCgroup second = tree.newRun("with-swap", 1);
    assertThat(second.dir()).isEqualTo(swappy);
    assertThat(Files.readString(swappy.resolve("memory.swap.max"))).isEqualTo("0");
  }

  @Test
  void withoutControllersRunsAreTrackedButNoLimitIsWritten() throws Exception {
    Path mount = fakeCgroup(fs.resolve("cg"), "hugetlb", "");
    fakeCgroup(mount.resolve("ql3-runs-abcd"), "", "");
    CgroupSubtree tree =
        CgroupSubtree.open(
            new CgroupLocation(mount, mount),
            1,
            "ql3-runs-abcd",
            new RunLimits(OptionalLong.empty(), OptionalLong.empty(), 100));
    assertThat(tree.controllers()).isEmpty();
    assertThat(mount.resolve(CgroupSubtree.AGENT_LEAF))
        .as("the root cgroup is exempt: no move")
        .doesNotExist();
    RunCgroup run = tree.newRun("r", 1);
    try (var files = Files.list(run.dir())) {
      assertThat(files.toList()).isEmpty();
    }
  }

  @Test
  void anAgentAlreadyInItsLeafUsesTheParentAndSweepsLeftoverRunCgroups() throws Exception {
    Path mount = fakeCgroup(fs.resolve("cg"), "cpu memory pids", "");
    Path unit = fakeCgroup(mount.resolve("u.service"), "cpu memory pids", "cpu memory pids");
    Path leaf = fakeCgroup(unit.resolve(CgroupSubtree.AGENT_LEAF), "", "");
    Path runs = fakeCgroup(unit.resolve("ql3-runs-abcd"), "cpu memory pids", "cpu memory pids");
    Path leftover = fakeCgroup(runs.resolve("old@1.7"), "", ""); // empty: removed without a kill
    Files.list(leftover).forEach(p -> p.toFile().delete());

    CgroupSubtree.open(
        new CgroupLocation(mount, leaf),
        77,
        "ql3-runs-abcd",
        new RunLimits(OptionalLong.empty(), OptionalLong.empty(), 100));

    assertThat(leaf.resolve(CgroupSubtree.AGENT_LEAF)).as("no nested leaf").doesNotExist();
    assertThat(leftover).doesNotExist();
  }

  @Test
  void mountinfoAndSelfCgroupGiveTheAgentsOwnDirectory() throws Exception {
    Path mountinfo = fs.resolve("mountinfo");
    Files.writeString(
        mountinfo,
        String.join(
                "\n",
                List.of(
                    "24 1 0:22 / /sys rw,nosuid - sysfs sysfs rw",
                    "31 24 0:28 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate"))
            + "\n");
    Path self = fs.resolve("cgroup");
    Files.writeString(
        self, "0::/system.slice/system-ql3\\x2dworker.slice/ql3-worker@edge.service\n");
    CgroupLocation at = CgroupLocation.find(mountinfo, self).orElseThrow();
    assertThat(at.mount()).isEqualTo(Path.of("/sys/fs/cgroup"));
    assertThat(at.own())
        .isEqualTo(
            Path.of(
                "/sys/fs/cgroup/system.slice/system-ql3\\x2dworker.slice/ql3-worker@edge.service"));
    assertThat(at.atRoot()).isFalse();

    Files.writeString(mountinfo, "31 24 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n");
    assertThat(CgroupLocation.find(mountinfo, self)).as("cgroup v1 only").isEmpty();
  }

  @Test
  void limitsParseAsTheConfigurationWritesThem() {
    assertThat(RunLimits.parseMemory("512M")).hasValue(512 * RunLimits.MIB);
    assertThat(RunLimits.parseMemory("2G")).hasValue(2048 * RunLimits.MIB);
    assertThat(RunLimits.parseMemory("max")).isEmpty();
    assertThat(RunLimits.parsePids("4096")).hasValue(4096);
    assertThatThrownBy(() -> RunLimits.parseMemory("lots"))
        .hasMessageContaining("not a memory size");
    assertThatThrownBy(() -> new RunLimits(OptionalLong.of(1024), OptionalLong.empty(), 100))
        .hasMessageContaining("at least 4M");
  }
}
