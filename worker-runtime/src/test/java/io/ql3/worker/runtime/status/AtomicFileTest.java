package io.ql3.worker.runtime.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
  @TempDir Path dir;

  @Test
  void replacesContentAndLeavesNoTemporaryFile() throws Exception {
    AtomicFile f = new AtomicFile(dir.resolve("status.json"));
    f.replace("one".getBytes(StandardCharsets.UTF_8));
    f.replace("two".getBytes(StandardCharsets.UTF_8));
    assertThat(Files.readString(dir.resolve("status.json"))).isEqualTo("two");
    try (var s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("status.json");
    }
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("status.json"))))
        .isEqualTo("rw-r-----");
  }

  @Test
  void aSymlinkPlantedAtAnOldTemporaryNameIsNeitherFollowedNorUsed() throws Exception {
    Path victim = dir.resolve("victim");
    Files.writeString(victim, "keep");
    Files.createSymbolicLink(dir.resolve(".status.json.tmp"), victim);
    AtomicFile f = new AtomicFile(dir.resolve("status.json"));
    f.replace("new".getBytes(StandardCharsets.UTF_8));
    assertThat(Files.readString(victim)).isEqualTo("keep");
    assertThat(Files.readString(dir.resolve("status.json"))).isEqualTo("new");
    assertThat(Files.isSymbolicLink(dir.resolve("status.json"))).isFalse();
  }

  @Test
  void aConcurrentReaderSeesOnlyWholeVersions() throws Exception {
    Path target = dir.resolve("metrics.prom");
    AtomicFile f = new AtomicFile(target);
    byte[] a = "a".repeat(64 * 1024).getBytes(StandardCharsets.UTF_8);
    byte[] b = "b".repeat(64 * 1024).getBytes(StandardCharsets.UTF_8);
    f.replace(a);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<String> torn = new AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              while (!stop.get()) {
                try {
                  String s = Files.readString(target);
                  if (!(s.equals(new String(a, StandardCharsets.UTF_8))
                      || s.equals(new String(b, StandardCharsets.UTF_8)))) {
                    torn.set("read " + s.length() + " chars of mixed content");
                  }
                } catch (java.io.IOException e) {
                  torn.set(e.toString());
                }
              }
            },
            "test-reader");
    reader.start();
    for (int i = 0; i < 200; i++) {
      f.replace(i % 2 == 0 ? b : a);
    }
    stop.set(true);
    reader.join();
    assertThat(torn.get()).isNull();
    assertThat(List.of(a.length)).containsExactly(Files.readAllBytes(target).length);
  }
}
