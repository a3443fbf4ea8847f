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
    Files.createSymbolicLink(paths.workDirectory("r1", 1).resolve("file-link"), outside.resolve("keep"));

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
}
