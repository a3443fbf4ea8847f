package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Takes back from a run uid everything of its run before the uid goes to another run: its processes
 * (SIGKILL), its work directory and what it left in {@link RunLeftovers}. A run's work directory
 * belongs to its uid and nobody else can enter it, the agent included, so anything but an empty
 * directory is removed by starting {@code chmod -R u+rwx; rm -rf} (and {@code ipcrm}) as that uid,
 * through {@code setpriv} with every privilege dropped; as that uid a link leads only where the run
 * could go anyway.
 */
final class RunAccountCleanup {

  private static final System.Logger LOG = System.getLogger(RunAccountCleanup.class.getName());

  /**
   * As the run's account: removes each argument (a tree, or an IPC object), also what is
   * unreadable.
   */
  private static final String REMOVE_STAGE =
      "s=0; for d in \"$0\" \"$@\"; do case \"$d\" in"
          + " ipc-shm:*) ipcrm -m \"${d#ipc-shm:}\" || s=1;; ipc-msg:*) ipcrm -q \"${d#ipc-msg:}\" || s=1;;"
          + " ipc-sem:*) ipcrm -s \"${d#ipc-sem:}\" || s=1;;"
          + " *) chmod -R u+rwx -- \"$d\" 2>/dev/null; rm -rf -- \"$d\" || s=1;; esac; done; exit $s";

  private final Path setpriv;
  private final Path shell;
  private final Path proc;
  private final RunLeftovers leftovers;

  RunAccountCleanup(IsolationHost host) {
    this.setpriv = host.setpriv();
    this.shell = host.shell();
    this.proc = host.proc();
    this.leftovers = new RunLeftovers(host.proc(), host.sharedDirs(), System::currentTimeMillis);
  }

  /**
   * Removes a run's work directory, including what the run made unreadable, and what its uid left
   * in {@link RunLeftovers}, then says whether all of it is gone. With {@code killFirst} (no cgroup
   * held the run, or its cgroup did not empty in time) the uid's processes are killed first, and a
   * survivor means false. Nothing is started when the directory is empty or gone and nothing is
   * left elsewhere. The future completes on the JDK's process reaper.
   */
  CompletableFuture<Boolean> remove(RunAccount account, Path dir, boolean killFirst) {
    if (killFirst && !killProcessesOf(account)) {
      // What escaped its process group (setsid, a double fork) still runs as its uid: the next run
      // with this uid could signal it or read its /proc. What survives SIGKILL keeps the uid out of
      // use.
      return CompletableFuture.completedFuture(false);
    }
    List<String> left = leftovers.of(account.uid());
    left.addAll(RunLeftovers.besideWorkDirectory(dir, account.uid()));
    if (left.isEmpty()) {
      try {
        // Empty (a run that wrote nothing there): the agent owns runs/, so the sticky bit lets it
        // remove the entry itself, and no process is needed.
        Files.delete(dir);
        return CompletableFuture.completedFuture(true);
      } catch (java.nio.file.NoSuchFileException gone) {
        return CompletableFuture.completedFuture(true);
      } catch (IOException notEmpty) {
        // DirectoryNotEmptyException, or EACCES: only the account can look inside
      }
    }
    List<String> targets = new ArrayList<>();
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      targets.add(dir.toString());
    }
    targets.addAll(left);
    if (targets.isEmpty()) {
      return CompletableFuture.completedFuture(true);
    }
    try {
      Process p = removal(account, dir.getParent(), targets).start();
      return p.onExit()
          .thenApply(
              done ->
                  !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)
                      && leftovers.of(account.uid()).isEmpty()
                      && RunLeftovers.besideWorkDirectory(dir, account.uid()).isEmpty());
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cannot start the removal of " + dir + " as " + account + ": " + e);
      return CompletableFuture.completedFuture(false);
    }
  }

  /** SIGKILL to every live process of the account's uid until none is left (bounded): none left? */
  boolean killProcessesOf(RunAccount account) {
    RunAccounts one = new RunAccounts(account, 1);
    for (int round = 0; round < 100; round++) {
      List<Long> pids = RunProcessScan.live(proc, one);
      if (pids.isEmpty()) {
        return true;
      }
      pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
      try {
        Thread.sleep(round < 10 ? 1 : 10); // a killed process takes a moment to become a zombie
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    LOG.log(System.Logger.Level.WARNING, "processes of " + account + " survive SIGKILL");
    return false;
  }

  /**
   * At start, before any run: removes every entry of {@code runsDir} that belongs to one of the run
   * uids (what runs of an agent that died left) and what those uids left elsewhere, as its owner,
   * and returns how many entries are left (their uids are retired).
   */
  int sweep(Path runsDir, RunAccounts accounts) {
    if (!Files.isDirectory(runsDir, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    Map<Long, List<Path>> byOwner = new TreeMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(runsDir)) {
      for (Path e : entries) {
        try {
          long uid = (Integer) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS);
          if (accounts.containsUid(uid)) {
            byOwner.computeIfAbsent(uid, u -> new ArrayList<>()).add(e);
          }
        } catch (IOException | RuntimeException gone) {
          // removed meanwhile
        }
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot list " + runsDir + ": " + e);
      return 0;
    }
    int left = 0;
    for (Map.Entry<Long, List<Path>> e : byOwner.entrySet()) {
      RunAccount owner = accounts.withUid(e.getKey());
      try {
        List<String> targets = new ArrayList<>();
        e.getValue().forEach(d -> targets.add(d.toString()));
        targets.addAll(leftovers.of(owner.uid()));
        Process p = removal(owner, runsDir, targets).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (IOException | RuntimeException ex) {
        LOG.log(
            System.Logger.Level.WARNING,
            "cannot remove what " + owner + " left in " + runsDir + ": " + ex);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return left;
      }
      for (Path d : e.getValue()) {
        if (Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
          left++;
          accounts.retire(owner);
        }
      }
    }
    return left;
  }

  private ProcessBuilder removal(RunAccount account, Path in, List<String> targets) {
    List<String> c = new ArrayList<>();
    c.add(setpriv.toString());
    c.add("--reuid=" + account.uid());
    c.add("--regid=" + account.gid());
    c.add("--clear-groups");
    c.addAll(Isolation.DROP_PRIVILEGES);
    c.add("--");
    c.add(shell.toString());
    c.add("-c");
    c.add(REMOVE_STAGE);
    c.addAll(targets);
    ProcessBuilder b =
        new ProcessBuilder(c)
            .directory(in.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    b.environment().clear();
    b.environment().putAll(Isolation.HELPER_ENVIRONMENT);
    return b;
  }
}
