package io.ql3.worker.runtime.exec;

import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.RunAccount;
import io.ql3.worker.runtime.isolation.RunCgroup;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What prepare decided for one process run: the run's account (held until its work directory is
 * gone), its work directory (made by the account at launch when there is one), the cwd below it,
 * argv, the run's environment and the builder (directory and helper environment set). Starting it
 * is one {@link #start} at launch; nothing here is done twice.
 */
record ProcessLaunch(
    Optional<RunAccount> account,
    Path workDir,
    String cwdBelow,
    List<String> argv,
    Map<String, String> environment,
    ProcessBuilder builder) {
  ProcessLaunch {
    argv = List.copyOf(argv);
    environment = new java.util.TreeMap<>(environment);
  }

  /**
   * Starts the main process through {@link Isolation#command}: it enters {@code cgroup} (when
   * given) before any of its code runs and, started through the {@code setsid} program, leads its
   * own process group.
   */
  Process start(Isolation isolation, Optional<RunCgroup> cgroup, Path setsid) throws IOException {
    return builder
        .command(isolation.command(cgroup, account, setsid, workDir, cwdBelow, argv, environment))
        .start();
  }
}
