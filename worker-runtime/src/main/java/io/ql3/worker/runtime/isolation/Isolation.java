package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The isolation in force for this agent's runs, resolved once at start from the configuration and
 * the host: whether runs switch to accounts of their own (one uid per slot, {@link RunAccounts},
 * through {@code setpriv}), and whether each run gets its own cgroup. The trust boundary per mode
 * is the table in docs/executors.md, "Isolation".
 *
 * <p>A run is launched as {@code sh -c 'umask 007; echo $$ >PROCS; exec "$@"'} (its own cgroup
 * before any of its code runs) {@code setsid --} (its own session and process group) {@code setpriv
 * [--reuid=U --regid=U --clear-groups] --inh-caps=-all --ambient-caps=-all --bounding-set=-all
 * --no-new-privs --} (the run's account; no capability and no way to gain one, also when runs keep
 * the agent's user) [{@code sh -c WORK_STAGE DIR CWD}: as the run's account, creates its work
 * directory, mode 0700, and its cwd, and enters it] {@code env -i NAME=VALUE… } then the run's
 * argv. Every helper ends its options with {@code --} ({@code env} takes assignments up to the
 * program, so argv[0] must not contain {@code =}). The helpers run with {@link #HELPER_ENVIRONMENT}
 * only: the run's own environment ({@code LD_PRELOAD}, {@code SHELLOPTS}…) exists only from the
 * final {@code execve} on, after every capability is gone.
 *
 * <p>With a user switch the work directory belongs to the run's account and nobody else can enter
 * it; the agent cannot either, so it removes it by starting {@code rm} as that account ({@link
 * #removeWorkDirectory}) before the account goes to another run.
 */
public final class Isolation {

  /** The whole environment of the helpers that run before the run's own program. */
  public static final Map<String, String> HELPER_ENVIRONMENT =
      Map.of("PATH", "/usr/bin:/bin", "LANG", "C");

  private static final List<String> DROP_PRIVILEGES =
      List.of("--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs");
  private static final String ENTRY_WITH_CGROUP =
      "umask 007; echo $$ >\"$0\" || { echo \"ql3-worker: cannot enter the run's cgroup $0\" >&2; exit 125; };"
          + " exec \"$@\"";
  private static final String ENTRY_WITHOUT_CGROUP = "umask 007; exec \"$@\"";

  /**
   * As the run's account: $0 the work directory (new, 0700, absolute), $1 the cwd below it or empty
   * (given as {@code ./$1}: {@code cd -} would be {@code cd $OLDPWD}).
   */
  private static final String WORK_STAGE =
      "mkdir -m 0700 -- \"$0\" && cd -P -- \"$0\" && { [ -z \"$1\" ] || { mkdir -p -- \"./$1\" && cd -P -- \"./$1\"; }; }"
          + " || { echo \"ql3-worker: cannot create the work directory $0 (cwd '$1')\" >&2; exit 125; }; shift; exec \"$@\"";

  /** As the run's account: removes each argument's tree, also what the run made unreadable. */
  private static final String REMOVE_STAGE =
      "s=0; for d in \"$0\" \"$@\"; do case \"$d\" in"
          + " ipc-shm:*) ipcrm -m \"${d#ipc-shm:}\" || s=1;; ipc-msg:*) ipcrm -q \"${d#ipc-msg:}\" || s=1;;"
          + " ipc-sem:*) ipcrm -s \"${d#ipc-sem:}\" || s=1;;"
          + " *) chmod -R u+rwx -- \"$d\" 2>/dev/null; rm -rf -- \"$d\" || s=1;; esac; done; exit $s";

  private static final System.Logger LOG = System.getLogger(Isolation.class.getName());

  private final IsolationMode mode;
  private final Optional<RunAccounts> accounts;
  private final Optional<CgroupSubtree> cgroups;
  private final Map<String, String> inactive; // part -> why not active
  private final Path setpriv;
  private final Path shell;
  private final Path env;
  private final Path proc;
  private final List<Path> sharedDirs;

  private Isolation(
      IsolationMode mode,
      Optional<RunAccounts> accounts,
      Optional<CgroupSubtree> cgroups,
      Map<String, String> inactive,
      IsolationHost host) {
    this.mode = mode;
    this.accounts = accounts;
    this.cgroups = cgroups;
    this.inactive = Map.copyOf(inactive);
    this.setpriv = host.setpriv();
    this.shell = host.shell();
    this.env = host.env();
    this.proc = host.proc();
    this.sharedDirs = host.sharedDirs();
  }

  /** Same-user execution, no cgroup ({@code isolation = "none"}, and executor unit tests). */
  public static Isolation none() {
    return new Isolation(
        IsolationMode.NONE,
        Optional.empty(),
        Optional.empty(),
        Map.of("user_switch", "isolation = \"none\"", "cgroup", "isolation = \"none\""),
        IsolationHost.system());
  }

  /**
   * Resolves what this host allows.
   *
   * @param workDir the configured {@code execution.work-dir}: the run account must reach it
   * @param runsName the name of the agent's run cgroup subtree ({@code ql3-runs-HASH})
   * @throws IsolationException in mode {@code required}, naming every missing part
   */
  public static Isolation resolve(
      IsolationSettings settings, IsolationHost host, Path workDir, String runsName)
      throws IsolationException {
    if (settings.mode() == IsolationMode.NONE) {
      return new Isolation(
          IsolationMode.NONE, Optional.empty(), Optional.empty(), none().inactive, host);
    }
    Map<String, String> inactive = new LinkedHashMap<>();
    // The cgroup first: opening it kills what an earlier agent of this journal left running, so the
    // run uids are free again when the user switch checks that no process uses them.
    Optional<CgroupSubtree> cgroups = Optional.empty();
    try {
      cgroups = Optional.of(cgroup(settings, host, runsName));
    } catch (Missing m) {
      inactive.put("cgroup", m.getMessage());
    }
    Optional<RunAccounts> accounts = Optional.empty();
    try {
      accounts = Optional.of(userSwitch(settings, host, workDir));
    } catch (Missing m) {
      inactive.put("user_switch", m.getMessage());
    }
    if (settings.mode() == IsolationMode.REQUIRED && !inactive.isEmpty()) {
      cgroups.ifPresent(CgroupSubtree::close);
      List<String> missing = new ArrayList<>();
      inactive.forEach((part, why) -> missing.add(part + ": " + why));
      throw new IsolationException(missing);
    }
    return new Isolation(settings.mode(), accounts, cgroups, inactive, host);
  }

  private static RunAccounts userSwitch(IsolationSettings s, IsolationHost host, Path workDir)
      throws Missing {
    RunAccounts range = s.accounts();
    ProcessIdentity self;
    try {
      self = ProcessIdentity.read(host.selfStatus());
    } catch (IOException e) {
      throw new Missing("cannot read " + host.selfStatus() + ": " + e.getMessage());
    }
    String ids =
        "run uids "
            + range.first()
            + "-"
            + range.last()
            + " (execution.run-uid-base, one per slot)";
    if (range.contains(self.uid())
        || range.contains(self.gid())
        || self.groups().stream().anyMatch(range::contains)) {
      throw new Missing(
          ids + " include the agent's own uid " + self.uid() + " or one of its groups");
    }
    try {
      List<String> named = new ArrayList<>(host.accounts().usersIn(range.first(), range.last()));
      named.addAll(host.accounts().groupsIn(range.first(), range.last()));
      if (!named.isEmpty()) {
        throw new Missing(
            ids
                + " hold named accounts: "
                + String.join(" ", named)
                + " (choose a free range: execution.run-uid-base)");
      }
    } catch (IOException e) {
      throw new Missing("cannot list the host's accounts: " + e.getMessage());
    }
    String busy = processInRange(host.proc(), range);
    if (busy != null) {
      throw new Missing(
          ids
              + " are in use: "
              + busy
              + " (another worker on this host with an overlapping execution.run-uid-base?)");
    }
    if (!self.isRoot()) {
      List<String> caps = new ArrayList<>();
      for (int cap :
          new int[] {
            ProcessIdentity.CAP_SETUID,
            ProcessIdentity.CAP_SETGID,
            ProcessIdentity.CAP_SETPCAP,
            ProcessIdentity.CAP_KILL
          }) {
        if (!self.hasCapability(cap)) {
          caps.add(capName(cap));
        }
      }
      if (!caps.isEmpty()) {
        throw new Missing(
            "the agent (uid "
                + self.uid()
                + ") lacks "
                + String.join(" ", caps)
                + " (the packaged unit grants them as AmbientCapabilities=)");
      }
    }
    if (!Files.isExecutable(host.setpriv())) {
      throw new Missing(host.setpriv() + " (util-linux setpriv) is missing");
    }
    if (!Files.isExecutable(host.shell())) {
      throw new Missing(host.shell() + " is missing");
    }
    String unreachable = unreachable(workDir);
    if (unreachable != null) {
      throw new Missing(unreachable);
    }
    return range;
  }

  /** A zombie holds a pid, nothing else: its parent (here often PID 1) has not reaped it yet. */
  private static boolean isZombie(Path pid) {
    try {
      String stat = Files.readString(pid.resolve("stat"));
      int end = stat.lastIndexOf(')');
      char state = end > 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
      return state == 'Z' || state == 'X';
    } catch (IOException | RuntimeException gone) {
      return true; // exited meanwhile
    }
  }

  /**
   * A live process (not a zombie) whose uid is one of the range's, as "pid P (uid U, comm)", or
   * null.
   */
  private static String processInRange(Path proc, RunAccounts range) {
    try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, "[0-9]*")) {
      for (Path pid : pids) {
        try {
          int uid = (Integer) Files.getAttribute(pid, "unix:uid", LinkOption.NOFOLLOW_LINKS);
          if (range.contains(uid) && !isZombie(pid)) {
            String comm = "";
            try {
              comm = ", " + Files.readString(pid.resolve("comm")).strip();
            } catch (IOException | RuntimeException gone) {
              // exited meanwhile
            }
            return "pid " + pid.getFileName() + " (uid " + uid + comm + ")";
          }
        } catch (IOException | RuntimeException gone) {
          // exited meanwhile
        }
      }
    } catch (IOException e) {
      return null; // no /proc to look at: nothing known to be in use
    }
    return null;
  }

  /** The first ancestor of the work directory the run account cannot traverse, or null. */
  private static String unreachable(Path workDir) {
    Path p = workDir.toAbsolutePath().normalize();
    for (Path d = p; d != null; d = d.getParent()) {
      if (!Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
        continue; // created by the agent with the right mode
      }
      try {
        int mode = (Integer) Files.getAttribute(d, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if (!d.equals(p) && (mode & 01) == 0) {
          return "the run user cannot reach "
              + workDir
              + ": "
              + d
              + " has mode "
              + String.format("%04o", mode & 07777)
              + " (others need x: chmod o+x "
              + d
              + ")";
        }
      } catch (IOException | UnsupportedOperationException e) {
        return "cannot read the mode of " + d + ": " + e.getMessage();
      }
    }
    return null;
  }

  private static CgroupSubtree cgroup(IsolationSettings s, IsolationHost host, String runsName)
      throws Missing {
    Optional<CgroupLocation> where;
    try {
      where = CgroupLocation.find(host.mountinfo(), host.selfCgroup());
    } catch (IOException e) {
      throw new Missing(
          "cannot read " + host.mountinfo() + " / " + host.selfCgroup() + ": " + e.getMessage());
    }
    if (where.isEmpty()) {
      throw new Missing("no cgroup v2 hierarchy is mounted");
    }
    Path own = where.get().own();
    if (!Files.isWritable(own.resolve("cgroup.procs")) || !Files.isWritable(own)) {
      throw new Missing("the agent's cgroup " + own + " is not writable (systemd: Delegate=yes)");
    }
    if (!Files.isExecutable(host.shell())) {
      throw new Missing(host.shell() + " is missing");
    }
    try {
      return CgroupSubtree.open(where.get(), host.selfPid(), runsName, s.limits());
    } catch (IOException e) {
      throw new Missing(e.getMessage());
    }
  }

  private static String capName(int cap) {
    return switch (cap) {
      case ProcessIdentity.CAP_KILL -> "CAP_KILL";
      case ProcessIdentity.CAP_SETGID -> "CAP_SETGID";
      case ProcessIdentity.CAP_SETUID -> "CAP_SETUID";
      case ProcessIdentity.CAP_SETPCAP -> "CAP_SETPCAP";
      default -> "capability " + cap;
    };
  }

  // ---- what is in force

  public IsolationMode mode() {
    return mode;
  }

  /** The accounts runs switch to; empty when they run as the agent's user. */
  public Optional<RunAccounts> accounts() {
    return accounts;
  }

  /**
   * An account for one run, held until {@link #releaseAccount}; empty when runs keep the agent's
   * user.
   *
   * @throws IllegalStateException every account is held or retired (more runs than slots)
   */
  public Optional<RunAccount> acquireAccount() {
    if (accounts.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        accounts
            .get()
            .acquire()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no free run account among "
                            + accounts.get()
                            + " ("
                            + accounts.get().free()
                            + " free)")));
  }

  /** Gives a run's account back (its processes and work directory are gone). */
  public void releaseAccount(RunAccount account) {
    accounts.ifPresent(a -> a.release(account));
  }

  /**
   * Never hands a run's account out again in this process (its work directory could not be
   * removed).
   */
  public void retireAccount(RunAccount account) {
    accounts.ifPresent(a -> a.retire(account));
  }

  /** The agent's run cgroup subtree; empty when runs get no cgroup. */
  public Optional<CgroupSubtree> cgroups() {
    return cgroups;
  }

  /** Parts not in force and why ({@code user_switch}, {@code cgroup}). */
  public Map<String, String> inactive() {
    return inactive;
  }

  /**
   * One line for the start-up log, {@code status} and {@code check}: e.g. {@code
   * user_switch=ql3-run(998):ql3-run(998) cgroup=/sys/fs/cgroup/.../ql3-runs-1a2b3c4d
   * controllers=memory,pids}.
   */
  public Map<String, String> describe() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("mode", mode.configName());
    d.put("user_switch", accounts.map(RunAccounts::toString).orElse("no"));
    d.put("cgroup", cgroups.map(c -> c.runsCgroup().dir().toString()).orElse("no"));
    d.put(
        "controllers",
        cgroups
            .map(c -> c.controllers().isEmpty() ? "none" : String.join(",", c.controllers()))
            .orElse("none"));
    cgroups.ifPresent(c -> d.put("limits", c.limits().toString()));
    inactive.forEach((part, why) -> d.put(part + "_inactive", why));
    return d;
  }

  /**
   * For the metric: {@code user_switch}, {@code cgroup}, {@code cpu}, {@code memory}, {@code pids}
   * → in force.
   */
  public Map<String, Boolean> parts() {
    Map<String, Boolean> p = new LinkedHashMap<>();
    p.put("user_switch", accounts.isPresent());
    p.put("cgroup", cgroups.isPresent());
    for (String c : List.of("cpu", "memory", "pids")) {
      p.put(c, cgroups.map(t -> t.controllers().contains(c)).orElse(false));
    }
    return p;
  }

  /** {@link #describe()} on one line, without the reasons ({@code status}). */
  public String summary() {
    StringBuilder b = new StringBuilder();
    describe()
        .forEach(
            (k, v) -> {
              if (!k.endsWith("_inactive")) {
                b.append(b.length() == 0 ? "" : " ")
                    .append(k)
                    .append('=')
                    .append(v.replace(' ', '_'));
              }
            });
    return b.toString();
  }

  // ---- per run

  /** A new cgroup for one run attempt, or empty when runs get none. */
  public Optional<RunCgroup> newRunCgroup(String runId, long attempt) throws IOException {
    if (cgroups.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(cgroups.get().newRun(runId, attempt));
  }

  /**
   * The command that starts {@code argv} with {@code runEnvironment}, isolated: entry helper,
   * {@code setsid}, {@code setpriv}, with an account the work stage (which creates {@code workDir}
   * and {@code cwd} below it as that account), {@code env -i}, then argv verbatim. Start it with
   * {@link #HELPER_ENVIRONMENT} as its environment, in a directory the account can traverse (the
   * parent of {@code workDir}).
   *
   * @param cwd the spec's relative cwd (already checked), or null for the work directory itself
   * @throws IllegalArgumentException when argv[0] contains {@code =} (env would read it as an
   *     assignment; {@link #checkProgramName} says so at prepare)
   */
  public List<String> command(
      Optional<RunCgroup> cgroup,
      Optional<RunAccount> account,
      Path setsid,
      Path workDir,
      String cwd,
      List<String> argv,
      Map<String, String> runEnvironment) {
    if (checkProgramName(argv.get(0)) != null) {
      throw new IllegalArgumentException(checkProgramName(argv.get(0)));
    }
    List<String> c = new ArrayList<>(argv.size() + runEnvironment.size() + 20);
    if (cgroup.isPresent()) {
      c.add(shell.toString());
      c.add("-c");
      c.add(ENTRY_WITH_CGROUP);
      c.add(cgroup.get().procsFile().toString());
    } else if (account.isPresent()) {
      c.add(shell.toString());
      c.add("-c");
      c.add(ENTRY_WITHOUT_CGROUP);
      c.add("ql3-entry");
    }
    c.add(setsid.toString());
    c.add("--");
    c.add(setpriv.toString());
    if (account.isPresent()) {
      c.add("--reuid=" + account.get().uid());
      c.add("--regid=" + account.get().gid());
      c.add("--clear-groups");
    }
    c.addAll(DROP_PRIVILEGES);
    c.add("--");
    if (account.isPresent()) {
      c.add(shell.toString());
      c.add("-c");
      c.add(WORK_STAGE);
      c.add(workDir.toString());
      c.add(cwd == null ? "" : cwd);
    }
    c.add(env.toString());
    c.add("-i");
    for (Map.Entry<String, String> e : runEnvironment.entrySet()) {
      c.add(e.getKey() + "=" + e.getValue());
    }
    c.addAll(argv);
    return c;
  }

  /** Why this argv[0] cannot be started through {@code env}, or null when it can. */
  public static String checkProgramName(String argv0) {
    return argv0.indexOf('=') >= 0
        ? "argv[0] '" + argv0 + "' contains '=', which env(1) would read as an assignment"
        : null;
  }

  /**
   * Removes a run's work directory as the run's account (the only one that can enter it), including
   * what the run made unreadable, and what its uid left in {@link RunLeftovers}, then says whether
   * all of it is gone ({@code processesMayRemain}: the run's cgroup did not empty in time, so its
   * uid's processes are killed first, as they always are without a cgroup). Nothing is started when
   * the directory is empty or gone. The future completes on the JDK's process reaper.
   */
  public CompletableFuture<Boolean> removeWorkDirectory(
      RunAccount account, Path dir, boolean processesMayRemain) {
    if ((cgroups.isEmpty() || processesMayRemain) && !killProcessesOf(account)) {
      // No cgroup held the run (what escaped its process group, setsid or a double fork, still
      // runs as its uid), or its cgroup did not empty in time: nothing of it may outlive it, since
      // the next run with this uid could signal it or read its /proc. What survives SIGKILL keeps
      // the uid out of use.
      return CompletableFuture.completedFuture(false);
    }
    List<String> leftovers = RunLeftovers.of(account.uid(), proc, sharedDirs);
    if (leftovers.isEmpty()) {
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
    targets.addAll(leftovers);
    if (targets.isEmpty()) {
      return CompletableFuture.completedFuture(true);
    }
    try {
      Process p = removal(account, dir.getParent(), targets).start();
      return p.onExit()
          .thenApply(
              done ->
                  !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)
                      && RunLeftovers.of(account.uid(), proc, sharedDirs).isEmpty());
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "cannot start the removal of " + dir + " as " + account + ": " + e);
      return CompletableFuture.completedFuture(false);
    }
  }

  /**
   * SIGKILL to every live process with the account's uid until none is left (bounded): none left?
   */
  boolean killProcessesOf(RunAccount account) {
    RunAccounts one = new RunAccounts(account.uid(), 1);
    for (int round = 0; round < 100; round++) {
      List<Long> pids = new ArrayList<>();
      try (DirectoryStream<Path> all = Files.newDirectoryStream(proc, "[0-9]*")) {
        for (Path pid : all) {
          try {
            int uid = (Integer) Files.getAttribute(pid, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (one.contains(uid) && !isZombie(pid)) {
              pids.add(Long.parseLong(pid.getFileName().toString()));
            }
          } catch (IOException | RuntimeException gone) {
            // exited meanwhile
          }
        }
      } catch (IOException e) {
        return true; // no /proc to look at
      }
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

  private ProcessBuilder removal(RunAccount account, Path in, List<String> targets) {
    List<String> c = new ArrayList<>();
    c.add(setpriv.toString());
    c.add("--reuid=" + account.uid());
    c.add("--regid=" + account.gid());
    c.add("--clear-groups");
    c.addAll(DROP_PRIVILEGES);
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
    b.environment().putAll(HELPER_ENVIRONMENT);
    return b;
  }

  /**
   * At start, before any run: removes every entry of {@code runsDir} that belongs to one of the run
   * uids (what runs of an agent that died left), as its owner, and returns how many are left.
   */
  public int sweepWorkDirectories(Path runsDir) {
    if (accounts.isEmpty() || !Files.isDirectory(runsDir, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    Map<Long, List<Path>> byOwner = new TreeMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(runsDir)) {
      for (Path e : entries) {
        try {
          long uid = (Integer) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS);
          if (accounts.get().contains(uid)) {
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
      RunAccount owner = new RunAccount(e.getKey(), e.getKey());
      try {
        List<String> targets = new ArrayList<>();
        e.getValue().forEach(d -> targets.add(d.toString()));
        targets.addAll(RunLeftovers.of(owner.uid(), proc, sharedDirs));
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
          accounts.get().retire(owner);
        }
      }
    }
    return left;
  }

  /**
   * Sets the modes of the work root for the run accounts: {@code WORK} traversable but not listable
   * (0711); {@code WORK/runs} 1733 (each run creates its own directory there as its account, lists
   * nothing, and the sticky bit keeps it from removing or renaming another's); {@code WORK/logs}
   * private (0700).
   */
  public void prepareWorkRoot(Path workDir) throws IOException {
    if (accounts.isEmpty()) {
      return; // the agent's own user runs everything: modes stay as the operator made them
    }
    Path runs = workDir.resolve("runs");
    Path logs = workDir.resolve("logs");
    for (Path d : List.of(workDir, runs, logs)) {
      Files.createDirectories(d);
    }
    Files.setAttribute(workDir, "unix:mode", 0711, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(runs, "unix:mode", 01733, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(logs, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
  }

  /** Removes the agent's run cgroup subtree when it is empty (at shutdown). */
  public void close() {
    cgroups.ifPresent(CgroupSubtree::close);
  }

  /** A part that is not available, with the reason. */
  private static final class Missing extends Exception {
    Missing(String message) {
      super(message, null, false, false);
    }
  }
}
