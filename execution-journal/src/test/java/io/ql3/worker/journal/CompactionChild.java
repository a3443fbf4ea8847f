package io.ql3.worker.journal;

import java.nio.file.Path;

/** Child JVM: opens the journal and compacts, dying abruptly (halt) at the named point. */
public final class CompactionChild {
  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    CompactionPoint point = CompactionPoint.valueOf(args[1]);
    Journal j =
        Journal.open(
            CompactionCrashTest.config(dir),
            new FileStorage(dir),
            p -> {
              if (p == point) {
                Runtime.getRuntime().halt(99); // no shutdown hooks, no cleanup: like kill -9
              }
            });
    j.compactNow();
    System.out.println("NO-HALT");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
