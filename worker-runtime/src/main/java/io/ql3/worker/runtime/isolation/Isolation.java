package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

  static final List<String> DROP_PRIVILEGES =
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

  private final IsolationMode mode;
  private final Optional<RunAccounts> accounts;
  private final Optional<CgroupSubtree> cgroups;
  private final Map<String, String> inactive; // part -> why not active
  private final Path setpriv;
  private final Path shell;
  private final Path env;
  private final RunAccountCleanup cleanup;

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
    this.cleanup = new RunAccountCleanup(host);
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
      cgroups = Optional.of(IsolationParts.cgroup(settings, host, runsName));
    } catch (IsolationParts.Missing m) {
      inactive.put("cgroup", m.getMessage());
    }
    Optional<RunAccounts> accounts = Optional.empty();
    try {
      accounts = Optional.of(IsolationParts.userSwitch(settings, host, workDir));
    } catch (IsolationParts.Missing m) {
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
   * Removes a run's work directory and what its uid left ({@link RunAccountCleanup#remove}); its
   * uid's processes are killed first when no cgroup held the run or {@code processesMayRemain} (its
   * cgroup did not empty in time).
   */
  public CompletableFuture<Boolean> removeWorkDirectory(
      RunAccount account, Path dir, boolean processesMayRemain) {
    return cleanup.remove(account, dir, cgroups.isEmpty() || processesMayRemain);
  }

  /**
   * At start, before any run: removes what run uids own in {@code runsDir} (and what they left
   * elsewhere), as them; returns how many entries are left ({@link RunAccountCleanup#sweep}).
   */
  public int sweepWorkDirectories(Path runsDir) {
    return accounts.map(a -> cleanup.sweep(runsDir, a)).orElse(0);
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
}
