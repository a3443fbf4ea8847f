package io.ql3.worker.journal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child JVM for the kill -9 test: opens the journal, then several threads run runs through their
 * life, printing one line per append AFTER it returned (so the parent knows it was acknowledged).
 * Line format: {@code A <runId> <phase> <seq>}. It never exits by itself; the parent kills it.
 */
public final class CrashChild {
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int threads = Integer.parseInt(args[1]);
    int maxRuns = Integer.parseInt(args[2]);
    String prefix = "c" + ProcessHandle.current().pid() + "-";
    PrintStream out =
        new PrintStream(
            new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "US-ASCII");
    Journal j = Journal.open(CrashTest.childConfig(dir));
    if (j.status() != Journal.Status.OPEN) {
      out.println("NOT-OPEN " + j.report());
      out.flush();
      Thread.sleep(60_000);
      return;
    }
    if (j.facts().session().isEmpty()) {
      j.append(Fixtures.session());
    }
    out.println("READY " + j.facts().lastSeq());
    out.flush();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int tt = t;
      Thread th =
          new Thread(
              () -> {
                for (int i = 0; i < maxRuns / threads; i++) {
                  String id = prefix + tt + "-" + i;
                  ack(out, id, RunPhase.ACCEPTED, j.append(Fixtures.offer(id)));
                  ack(out, id, RunPhase.STARTED, j.append(Fixtures.started(id)));
                  ack(out, id, RunPhase.RESULT_RECORDED, j.append(Fixtures.succeeded(id)));
                  ack(out, id, RunPhase.SETTLED, j.append(Fixtures.acked(id)));
                }
              },
              "appender-" + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join();
    }
    out.println("DONE");
    out.flush();
    Thread.sleep(60_000);
  }

  private static void ack(PrintStream out, String id, RunPhase phase, long seq) {
    synchronized (out) {
      out.println("A " + id + " " + phase + " " + seq);
      out.flush();
    }
  }
}
