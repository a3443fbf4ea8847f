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
import java.util.OptionalLong;

/**
 * The isolation in force for this agent's runs, resolved once at start from the configuration and
 * the host: which account runs execute as (a user switch through {@code setpriv}), and whether
 * each run gets its own cgroup. The trust boundary per mode is the table in docs/executors.md,
 * "Isolation".
 *
 * <p>A run is launched as {@code sh -c 'umask 007; echo $$ >PROCS; exec "$@"'} (its own cgroup
 * before any of its code runs) {@code setsid --} (its own session and process group)
 * {@code setpriv [--reuid --regid --clear-groups] --inh-caps=-all --ambient-caps=-all
 * --bounding-set=-all --no-new-privs --} (the run account; no capability and no way to gain one,
 * also when runs keep the agent's user) {@code env -i NAME=VALUE… } then the run's argv. Every
 * helper ends its options with {@code --} ({@code env} takes assignments up to the program, so
 * argv[0] must not contain {@code =}). The helpers run with {@link #HELPER_ENVIRONMENT} only: the
 * run's own environment ({@code LD_PRELOAD}, {@code SHELLOPTS}…) exists only from the final
 * {@code execve} on, after every capability is gone.
 */
public final class Isolation {

  /** The whole environment of the helpers that run before the run's own program. */
  public static final Map<String, String> HELPER_ENVIRONMENT = Map.of("PATH", "/usr/bin:/bin", "LANG", "C");

  private static final List<String> DROP_PRIVILEGES =
      List.of("--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs");
  private static final String ENTRY_WITH_CGROUP =
      "umask 007; echo $$ >\"$0\" || { echo \"ql3-worker: cannot enter the run's cgroup $0\" >&2; exit 125; };"
          + " exec \"$@\"";
  private static final String ENTRY_WITHOUT_CGROUP = "umask 007; exec \"$@\"";

  private final IsolationMode mode;
  private final Optional<RunAccount> account;
  private final Optional<CgroupSubtree> cgroups;
  private final Map<String, String> inactive; // part -> why not active
  private final Path setpriv;
  private final Path shell;
  private final Path env;

  private Isolation(IsolationMode mode, Optional<RunAccount> account, Optional<CgroupSubtree> cgroups,
      Map<String, String> inactive, IsolationHost host) {
    this.mode = mode;
    this.account = account;
    this.cgroups = cgroups;
    this.inactive = Map.copyOf(inactive);
    this.setpriv = host.setpriv();
    this.shell = host.shell();
    this.env = host.env();
  }

  /** Same-user execution, no cgroup ({@code isolation = "none"}, and executor unit tests). */
  public static Isolation none() {
    return new Isolation(IsolationMode.NONE, Optional.empty(), Optional.empty(),
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
  public static Isolation resolve(IsolationSettings settings, IsolationHost host, Path workDir, String runsName)
      throws IsolationException {
    if (settings.mode() == IsolationMode.NONE) {
      return new Isolation(IsolationMode.NONE, Optional.empty(), Optional.empty(), none().inactive, host);
    }
    Map<String, String> inactive = new LinkedHashMap<>();
    Optional<RunAccount> account = Optional.empty();
    try {
      account = userSwitch(settings, host, workDir);
    } catch (Missing m) {
      inactive.put("user_switch", m.getMessage());
    }
    Optional<CgroupSubtree> cgroups = Optional.empty();
    try {
      cgroups = Optional.of(cgroup(settings, host, runsName));
    } catch (Missing m) {
      inactive.put("cgroup", m.getMessage());
    }
    if (settings.mode() == IsolationMode.REQUIRED && !inactive.isEmpty()) {
      cgroups.ifPresent(CgroupSubtree::close);
      List<String> missing = new ArrayList<>();
      inactive.forEach((part, why) -> missing.add(part + ": " + why));
      throw new IsolationException(missing);
    }
    return new Isolation(settings.mode(), account, cgroups, inactive, host);
  }

  private static Optional<RunAccount> userSwitch(IsolationSettings s, IsolationHost host, Path workDir)
      throws Missing {
    ProcessIdentity self;
    OptionalLong uid;
    OptionalLong gid;
    try {
      self = ProcessIdentity.read(host.selfStatus());
      uid = host.accounts().uid(s.runUser());
      gid = host.accounts().gid(s.runGroup());
    } catch (IOException e) {
      throw new Missing("cannot look up the run account: " + e.getMessage());
    }
    if (uid.isEmpty()) {
      throw new Missing("run user '" + s.runUser() + "' does not exist (execution.run-user; the package's"
          + " sysusers file creates ql3-run: systemd-sysusers)");
    }
    if (gid.isEmpty()) {
      throw new Missing("run group '" + s.runGroup() + "' does not exist (execution.run-group)");
    }
    if (uid.getAsLong() == 0 || gid.getAsLong() == 0) {
      throw new Missing("run user/group '" + s.runUser() + ":" + s.runGroup() + "' is root: runs never run as root");
    }
    if (uid.getAsLong() == self.uid()) {
      throw new Missing("run user '" + s.runUser() + "' is the agent's own user (uid " + self.uid() + ")");
    }
    if (!self.isRoot()) {
      List<String> caps = new ArrayList<>();
      for (int cap : new int[] {ProcessIdentity.CAP_SETUID, ProcessIdentity.CAP_SETGID,
          ProcessIdentity.CAP_SETPCAP, ProcessIdentity.CAP_KILL}) {
        if (!self.hasCapability(cap)) {
          caps.add(capName(cap));
        }
      }
      if (!caps.isEmpty()) {
        throw new Missing("the agent (uid " + self.uid() + ") lacks " + String.join(" ", caps)
            + " (the packaged unit grants them as AmbientCapabilities=)");
      }
      if (!self.inGroup(gid.getAsLong())) {
        throw new Missing("the agent is not a member of the run group '" + s.runGroup()
            + "' (needed to hand each run its work directory; the unit sets SupplementaryGroups=)");
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
    return Optional.of(new RunAccount(s.runUser(), uid.getAsLong(), s.runGroup(), gid.getAsLong()));
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
          return "the run user cannot reach " + workDir + ": " + d + " has mode "
              + String.format("%04o", mode & 07777) + " (others need x: chmod o+x " + d + ")";
        }
      } catch (IOException | UnsupportedOperationException e) {
        return "cannot read the mode of " + d + ": " + e.getMessage();
      }
    }
    return null;
  }

  private static CgroupSubtree cgroup(IsolationSettings s, IsolationHost host, String runsName) throws Missing {
    Optional<CgroupLocation> where;
    try {
      where = CgroupLocation.find(host.mountinfo(), host.selfCgroup());
    } catch (IOException e) {
      throw new Missing("cannot read " + host.mountinfo() + " / " + host.selfCgroup() + ": " + e.getMessage());
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

  /** The account runs switch to; empty when they run as the agent's user. */
  public Optional<RunAccount> account() {
    return account;
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
   * One line for the start-up log, {@code status} and {@code check}: e.g. {@code user_switch=ql3-run(998):ql3-run(998)
   * cgroup=/sys/fs/cgroup/.../ql3-runs-1a2b3c4d controllers=memory,pids}.
   */
  public Map<String, String> describe() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("mode", mode.configName());
    d.put("user_switch", account.map(RunAccount::toString).orElse("no"));
    d.put("cgroup", cgroups.map(c -> c.runsCgroup().dir().toString()).orElse("no"));
    d.put("controllers", cgroups.map(c -> c.controllers().isEmpty() ? "none" : String.join(",", c.controllers()))
        .orElse("none"));
    cgroups.ifPresent(c -> d.put("limits", c.limits().toString()));
    inactive.forEach((part, why) -> d.put(part + "_inactive", why));
    return d;
  }

  /** For the metric: {@code user_switch}, {@code cgroup}, {@code cpu}, {@code memory}, {@code pids} → in force. */
  public Map<String, Boolean> parts() {
    Map<String, Boolean> p = new LinkedHashMap<>();
    p.put("user_switch", account.isPresent());
    p.put("cgroup", cgroups.isPresent());
    for (String c : List.of("cpu", "memory", "pids")) {
      p.put(c, cgroups.map(t -> t.controllers().contains(c)).orElse(false));
    }
    return p;
  }

  /** {@link #describe()} on one line, without the reasons ({@code status}). */
  public String summary() {
    StringBuilder b = new StringBuilder();
    describe().forEach((k, v) -> {
      if (!k.endsWith("_inactive")) {
        b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v.replace(' ', '_'));
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
   * {@code setsid}, {@code setpriv}, {@code env -i}, then argv verbatim. Start it with
   * {@link #HELPER_ENVIRONMENT} as its environment.
   *
   * @throws IllegalArgumentException when argv[0] contains {@code =} (env would read it as an
   *     assignment; {@link #checkProgramName} says so at prepare)
   */
  public List<String> command(
      Optional<RunCgroup> cgroup, Path setsid, List<String> argv, Map<String, String> runEnvironment) {
    if (checkProgramName(argv.get(0)) != null) {
      throw new IllegalArgumentException(checkProgramName(argv.get(0)));
    }
    List<String> c = new ArrayList<>(argv.size() + runEnvironment.size() + 16);
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
      RunAccount a = account.get();
      c.add("--reuid=" + a.uid());
      c.add("--regid=" + a.gid());
      c.add("--clear-groups");
    }
    c.addAll(DROP_PRIVILEGES);
    c.add("--");
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
   * Hands a freshly created work directory to the run: group = the run group, mode 0770 (the
   * agent keeps ownership, so it can close and remove it; no setgid bit, which the unit's
   * RestrictSUIDSGID= forbids: what the run creates gets its own group anyway). No change
   * without a user switch.
   */
  public void openWorkDirectory(Path dir) throws IOException {
    if (account.isPresent()) {
      Files.setAttribute(dir, "unix:gid", (int) account.get().gid(), LinkOption.NOFOLLOW_LINKS);
      Files.setAttribute(dir, "unix:mode", 0770, LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** Takes the work directory back from the run account once the run is over (mode 0700). */
  public void closeWorkDirectory(Path dir) {
    if (account.isPresent()) {
      try {
        Files.setAttribute(dir, "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
      } catch (IOException | RuntimeException e) {
        // The directory is gone already, or was never made.
      }
    }
  }

  /**
   * Sets the modes of the work root for the run account: {@code WORK} and {@code WORK/runs}
   * traversable but not listable (0711), {@code WORK/logs} private (0700).
   */
  public void prepareWorkRoot(Path workDir) throws IOException {
    if (account.isEmpty()) {
      return; // the agent's own user runs everything: modes stay as the operator made them
    }
    Path runs = workDir.resolve("runs");
    Path logs = workDir.resolve("logs");
    for (Path d : List.of(workDir, runs, logs)) {
      Files.createDirectories(d);
    }
    Files.setAttribute(workDir, "unix:mode", 0711, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(runs, "unix:mode", 0711, LinkOption.NOFOLLOW_LINKS);
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
