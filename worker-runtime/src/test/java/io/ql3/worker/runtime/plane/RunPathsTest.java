package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Removing a settled run's work directory, whatever the run left in it. */
class RunPathsTest {

  @TempDir Path tmp;

  @Test
  void linksInTheTreeAreRemovedNeverFollowed() throws Exception {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("keep"), "keep");
    RunPaths paths = new RunPaths(tmp.resolve("work"), 16);
    Path run = Files.createDirectories(paths.workDirectory("r1", 1).resolve("a/b"));
    Files.writeString(run.resolve("f"), "x");
    Files.createSymbolicLink(run.resolve("to-outside"), outside);
    Files.createSymbolicLink(
        paths.workDirectory("r1", 1).resolve("file-link"), outside.resolve("keep"));

    paths.cleanUp("r1", 1);

    assertThat(paths.workDirectory("r1", 1)).doesNotExist();
    assertThat(Files.readString(outside.resolve("keep"))).isEqualTo("keep");
  }

  @Test
  void aDeepTreeIsRemovedWithoutExhaustingTheStack() throws Exception {
    RunPaths paths = new RunPaths(tmp.resolve("work"), 16);
    Path d = paths.workDirectory("deep", 1);
    for (int i = 0; i < 200; i++) {
      d = d.resolve("d");
    }
    Files.createDirectories(d);
    paths.cleanUp("deep", 1);
    assertThat(paths.workDirectory("deep", 1)).doesNotExist();
  }

  @Test
  void logsArePrunedInBatchesToTheNewestKept() throws Exception {
    int kept = 4;
    RunPaths paths = new RunPaths(tmp.resolve("work"), kept);
    Path logsDir = paths.outputLog("r0", 1).getParent();
    long t = 1_700_000_000_000L;
    for (int i = 0; i < 40; i++) {
      Path log = paths.outputLog("r" + i, 1);
      Files.writeString(log, "out " + i);
      Files.setLastModifiedTime(log, java.nio.file.attribute.FileTime.fromMillis(t + i * 1000L));
      paths.cleanUp("r" + i, 1);
      long count;
      try (var s = Files.list(logsDir)) {
        count = s.count();
      }
      assertThat(count).isLessThanOrEqualTo(3L * kept);
    }
    assertThat(logsDir.resolve("r39@1.log")).exists();
    try (var s = Files.list(logsDir)) {
      // the oldest are gone: every log left is among the newest 3 x kept
      assertThat(
              s.map(
                  p ->
                      Integer.parseInt(
                          p.getFileName().toString().replaceAll("^r(\\d+)@1\\.log$", "$1"))))
          .allMatch(i -> i >= 40 - 3 * kept);
    }
  }
}
