package io.ql3.worker.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.controlplane.ingress.Alpn;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal damaged in the middle (a flipped byte in a record followed by committed records) needs
 * operator recovery: {@code ql3-worker run} exits 78 (EX_CONFIG) and the server sees no register
 * and no pull from it.
 */
class RecoveryRequiredTest {
  /** docs/journal.md: 128-byte segment header, then frames of 26 bytes + payload (length first). */
  private static final int HEADER = 128;

  private static final int FRAME_HEAD = 26;

  @TempDir Path dir;

  @Test
  void aCorruptJournalMeansNoRegisterNoPullAndExit78() throws Exception {
    try (ControlPlaneFixture cp = new ControlPlaneFixture(dir, Alpn.H2_AND_HTTP1)) {
      Path config = cp.agentConfig("");
      // A first, clean life that leaves several records: register, runs, drain, offline.
      try (InProcessAgent first = InProcessAgent.start(config)) {
        first.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        List<String> ids = cp.submit(3, "noop", "{}");
        ControlPlaneFixture.await("runs complete", Duration.ofSeconds(60), () -> cp.completed(ids));
        assertThat(first.shutdown(Duration.ofSeconds(60))).isZero();
      }

      Path segment = largestSegment(config.resolveSibling("journal"));
      List<long[]> frames = frames(segment);
      assertThat(frames).as("records in " + segment).hasSizeGreaterThanOrEqualTo(5);
      long[] middle = frames.get(frames.size() / 2);
      flipByte(segment, middle[0] + FRAME_HEAD + middle[1] / 2);

      java.util.Map<String, Long> requestsBefore = cp.server.stats().snapshot();
      long registers = cp.answered("register");
      long pulls = cp.answered("pull");
      int sessions = cp.sessions().size();
      AgentProcess second = AgentProcess.start(config, "edge", dir.resolve("agent-2.log"));
      try {
        assertThat(second.process.waitFor(60, TimeUnit.SECONDS)).as(second.output()).isTrue();
        assertThat(second.process.exitValue()).as(second.output()).isEqualTo(78);
      } finally {
        second.process.destroyForcibly();
        System.out.println(second.output()); // the child's lines in the test's report
      }
      assertThat(second.output())
          .contains("event=journal.recovery_required")
          .contains("CORRUPT_RECORD");
      assertThat(cp.answered("register")).isEqualTo(registers);
      assertThat(cp.answered("pull")).isEqualTo(pulls);
      // Nothing at all was sent: not even a completion or a heartbeat of the old session.
      assertThat(cp.server.stats().snapshot()).isEqualTo(requestsBefore);
      assertThat(cp.sessions()).hasSize(sessions);
      assertThat(cp.server.auditor().violations()).isEmpty();

      // The log names the command that repairs it; run as named, the agent starts again.
      java.util.regex.Matcher named =
          java.util.regex.Pattern.compile(
                  "'ql3-worker journal discard-damaged (--config \\S+ --profile \\S+ --reason \\S+ --file"
                      + " \\S+ --offset \\d+)'")
              .matcher(second.output());
      assertThat(named.find()).as(second.output()).isTrue();
      List<String> args = new ArrayList<>(List.of("journal", "discard-damaged"));
      args.addAll(List.of(named.group(1).split(" ")));
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      int exit =
          io.ql3.worker.cli.Main.execute(
              args.toArray(String[]::new),
              new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
              new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
      assertThat(exit).as(out.toString()).isZero();
      try (InProcessAgent third = InProcessAgent.start(config)) {
        third.awaitOutput("to=ACTIVE", Duration.ofSeconds(60));
        assertThat(third.shutdown(Duration.ofSeconds(60))).isZero();
      }
    }
  }

  private static Path largestSegment(Path journal) throws Exception {
    try (Stream<Path> files = Files.list(journal)) {
      List<Path> segments =
          files.filter(p -> p.getFileName().toString().matches("seg-\\d{20}\\.log")).toList();
      Path best = null;
      int most = -1;
      for (Path s : segments) {
        int n = frames(s).size();
        if (n > most) {
          most = n;
          best = s;
        }
      }
      return best;
    }
  }

  /** {offset, payload length} of every frame until the zeros begin. */
  private static List<long[]> frames(Path segment) throws Exception {
    List<long[]> out = new ArrayList<>();
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
      long off = HEADER;
      ByteBuffer len = ByteBuffer.allocate(4);
      while (off + FRAME_HEAD <= ch.size()) {
        len.clear();
        ch.read(len, off);
        int n = len.flip().getInt();
        if (n <= 0 || n > 65_536) {
          break;
        }
        out.add(new long[] {off, n});
        off += FRAME_HEAD + n;
      }
    }
    return out;
  }

  private static void flipByte(Path file, long offset) throws Exception {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
      ch.write(b, offset);
      ch.force(true);
    }
  }
}
