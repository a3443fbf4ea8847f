package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelFileTest {
  @TempDir Path dir;

  @Test
  void readsEveryByteWhateverTheSizeAroundItsBuffer() throws Exception {
    Random random = new Random(7);
    for (int size : new int[] {0, 1, 1023, 1024, 1025, 2048, 5000}) {
      byte[] content = new byte[size];
      random.nextBytes(content);
      Path f = Files.write(dir.resolve("f" + size), content);

      assertThat(KernelFile.read(f.toString())).as("%d bytes", size).isEqualTo(content);
    }
  }

  @Test
  void readsAKernelTableAsTheKernelGivesIt() throws Exception {
    Path table = Path.of("/proc/sysvipc/shm");
    if (Files.isReadable(table)) {
      assertThat(new String(KernelFile.read(table.toString()), "US-ASCII"))
          .startsWith("       key");
    }
    assertThat(new String(KernelFile.read("/proc/self/stat"), "US-ASCII"))
        .startsWith(ProcessHandle.current().pid() + " (");
  }

  @Test
  void followsALinkAndRefusesWhatIsMissingOrADirectory() throws Exception {
    Path target = Files.writeString(dir.resolve("target"), "populated 0\n");
    Path link = Files.createSymbolicLink(dir.resolve("link"), target);

    assertThat(KernelFile.read(link.toString())).isEqualTo("populated 0\n".getBytes("US-ASCII"));
    assertThatThrownBy(() -> KernelFile.read(dir.resolve("missing").toString()))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> KernelFile.read(dir.toString())).isInstanceOf(IOException.class);
  }
}
