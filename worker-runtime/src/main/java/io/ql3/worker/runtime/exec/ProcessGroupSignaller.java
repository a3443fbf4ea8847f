package io.ql3.worker.runtime.exec;

import java.io.File;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Sends a signal to a whole process group by running {@code kill -s SIG -- -PGID} as a short
 * child process: the JDK can signal one process, never a group. Asynchronous: the answer (true
 * when kill exited 0, i.e. at least one member was signalled) arrives when kill exits.
 */
final class ProcessGroupSignaller {

  private static final System.Logger LOG = System.getLogger(ProcessGroupSignaller.class.getName());

  private final Path kill;

  ProcessGroupSignaller(Path kill) {
    this.kill = kill;
  }

  CompletableFuture<Boolean> signal(long pgid, String signal) {
    if (pgid <= 1) {
      // -1 would mean "every process we may signal": never build that command.
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    ProcessBuilder pb =
        new ProcessBuilder(kill.toString(), "-s", signal, "--", "-" + pgid)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().clear();
    pb.environment().put("LANG", "C");
    try {
      Process p = pb.start();
      return p.onExit().thenApply(done -> done.exitValue() == 0);
    } catch (IOException e) {
      LOG.log(Level.ERROR, "cannot run " + kill + " to send " + signal + " to group " + pgid, e);
      return CompletableFuture.completedFuture(false);
    }
  }
}
