package io.ql3.worker.journal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A child JVM running a test main with the same java and the test classpath. */
final class ChildJvm {
  final Process process;
  final List<String> lines = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private final Object signal = new Object();

  private ChildJvm(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "child-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  static ChildJvm start(Class<?> main, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElseThrow());
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-Xmx64m");
    cmd.add("-XX:-UsePerfData");
    cmd.add("-Xshare:auto");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return new ChildJvm(pb.start());
  }

  private void read() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
        synchronized (signal) {
          signal.notifyAll();
        }
      }
    } catch (IOException ignored) {
      // The child was killed; what was read is what it acknowledged.
    }
    synchronized (signal) {
      signal.notifyAll();
    }
  }

  /** Waits until a line starting with {@code prefix} arrives or the child's output ends. */
  String awaitLine(String prefix, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    synchronized (signal) {
      while (true) {
        for (String l : lines) {
          if (l.startsWith(prefix)) {
            return l;
          }
        }
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0 || !reader.isAlive()) {
          return null;
        }
        signal.wait(left);
      }
    }
  }

  /** SIGKILL, then wait for the death and for every line the child wrote. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
    reader.join();
  }
}
