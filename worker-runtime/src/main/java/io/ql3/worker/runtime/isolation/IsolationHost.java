package io.ql3.worker.runtime.isolation;

import java.nio.file.Path;

/**
 * The host facts isolation is resolved from: the seam that lets tests point it at fake files.
 *
 * @param selfStatus {@code /proc/self/status}
 * @param selfCgroup {@code /proc/self/cgroup}
 * @param mountinfo {@code /proc/self/mountinfo}
 * @param selfPid the agent's pid
 * @param setpriv util-linux {@code setpriv}, which switches a run to its account
 * @param shell the POSIX shell of the cgroup entry helper
 * @param env coreutils {@code env}, which gives the run its own environment after setpriv
 * @param accounts name service lookups
 * @param proc {@code /proc}: which processes run with the run uids, their IPC objects
 * @param sharedDirs where every uid may write ({@link RunLeftovers#SHARED_DIRS})
 */
public record IsolationHost(
    Path selfStatus,
    Path selfCgroup,
    Path mountinfo,
    long selfPid,
    Path setpriv,
    Path shell,
    Path env,
    AccountLookup accounts,
    Path proc,
    java.util.List<Path> sharedDirs) {

  /** This process on this host. */
  public static IsolationHost system() {
    return new IsolationHost(
        Path.of("/proc/self/status"),
        Path.of("/proc/self/cgroup"),
        Path.of("/proc/self/mountinfo"),
        ProcessHandle.current().pid(),
        Path.of("/usr/bin/setpriv"),
        Path.of("/bin/sh"),
        Path.of("/usr/bin/env"),
        AccountLookup.system(),
        Path.of("/proc"),
        RunLeftovers.SHARED_DIRS);
  }
}
