package io.ql3.worker.journal;

import java.nio.file.Path;

/** Child JVM: tries to own the journal; prints OWNED or REFUSED <pid>; holds it when owned. */
public final class OwnerChild {
  public static void main(String[] args) throws Exception {
    try {
      Journal j = Journal.open(Fixtures.config(Path.of(args[0])));
      System.out.println("OWNED " + ProcessHandle.current().pid() + " " + j.status());
      System.out.flush();
      Thread.sleep(60_000);
    } catch (JournalOwnedException e) {
      System.out.println("REFUSED " + e.ownerPid().orElse(-1));
      System.out.flush();
    }
  }
}
