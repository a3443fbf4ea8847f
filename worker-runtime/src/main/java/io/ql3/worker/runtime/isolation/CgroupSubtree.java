package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's cgroup subtree: one cgroup per run attempt under {@code RUNS}, limits written into
 * each. Layout (docs/executors.md, "Isolation"):
 *
 * <pre>
 * OWN/                         the agent's cgroup (systemd: the unit's, with Delegate=yes)
 * ├── ql3-agent/               the agent itself, moved here at start (not when OWN is the root)
 * └── ql3-runs-HASH/           RUNS: one per journal (HASH of its path), controllers enabled
 *     └── RUNID@ATTEMPT.N/     one run attempt; removed when empty
 * </pre>
 *
 * The agent leaves OWN because of cgroup v2's "no internal processes" rule: controllers can be
 * enabled for OWN's children only while OWN itself holds no process. When the agent already sits in
 * a cgroup named {@code ql3-agent} (a second agent in one JVM, a restart in place), its parent is
 * taken as OWN. Leftover run cgroups of an earlier process (kill -9, power cut) are killed and
 * removed at {@link #open}.
 */
public final class CgroupSubtree {

  private static final System.Logger LOG = System.getLogger(CgroupSubtree.class.getName());

  public static final String AGENT_LEAF = "ql3-agent";

  /** Tasks kept for the agent out of its own cgroup's pids.max. */
  static final long AGENT_TASK_RESERVE = 256;

  private static final long SWEEP_WAIT_NANOS = 5_000_000_000L;

  private final Cgroup runs;
  private final Set<String> controllers;
  private final RunLimits limits;
  private final AtomicLong sequence = new AtomicLong();

  private CgroupSubtree(Cgroup runs, Set<String> controllers, RunLimits limits) {
    this.runs = runs;
    this.controllers = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(controllers));
    this.limits = limits;
  }

  /**
   * Sets the subtree up: moves the agent into its leaf where needed, enables what it can of cpu,
   * memory and pids, creates RUNS and sweeps leftovers.
   *
   * @param location where the agent is
   * @param selfPid the agent's pid
   * @param runsName {@code ql3-runs-HASH}
   * @throws IOException naming the step the host refused (the cgroup is then not usable)
   */
  public static CgroupSubtree open(
      CgroupLocation location, long selfPid, String runsName, RunLimits limits) throws IOException {
    Cgroup own = new Cgroup(ownDirectory(location));
    if (!location.atRoot() && own.dir().equals(location.own())) {
      Cgroup leaf = own.child(AGENT_LEAF);
      try {
        leaf.create().move(selfPid);
      } catch (IOException e) {
        throw new IOException("cannot move the agent into " + leaf + ": " + e.getMessage(), e);
      }
    }
    enableWanted(own);
    Cgroup runs = own.child(runsName);
    try {
      runs.create();
    } catch (IOException e) {
      throw new IOException("cannot create " + runs + ": " + e.getMessage(), e);
    }
    enableWanted(runs);
    reserveAgentTasks(own, runs);
    Set<String> enabled = intersect(runs.subtreeControl());
    CgroupSubtree tree = new CgroupSubtree(runs, enabled, limits);
    tree.sweep();
    return tree;
  }

  /**
   * OWN in the layout above for an agent at {@code location}: its own cgroup, or the parent of the
   * {@code ql3-agent} leaf it already sits in. RUNS is OWN's child named by the journal ({@code
   * IsolationStartup.runsCgroupName}).
   */
  public static Path ownDirectory(CgroupLocation location) {
    Path own = location.own();
    boolean inLeaf =
        !location.atRoot()
            && own.getFileName() != null
            && own.getFileName().toString().equals(AGENT_LEAF);
    return inLeaf ? own.getParent() : own;
  }

  /**
   * Keeps tasks for the agent itself: all runs together get the agent's own task limit (systemd:
   * the unit's TasksMax=) less {@link #AGENT_TASK_RESERVE}, so fork bombs in every slot at once
   * cannot starve the agent of threads.
   */
  private static void reserveAgentTasks(Cgroup own, Cgroup runs) {
    try {
      if (!runs.controllers().contains("pids")) {
        return;
      }
    } catch (IOException e) {
      return;
    }
    java.util.OptionalLong max = own.single("pids.max");
    if (max.isPresent() && max.getAsLong() > 2 * AGENT_TASK_RESERVE) {
      try {
        runs.write("pids.max", Long.toString(max.getAsLong() - AGENT_TASK_RESERVE));
      } catch (IOException e) {
        LOG.log(
            Level.WARNING, "cannot limit the tasks of all runs in " + runs + ": " + e.getMessage());
      }
    }
  }

  /** Enables what this cgroup offers of cpu, memory, pids for its children; a refusal is logged. */
  private static void enableWanted(Cgroup cg) throws IOException {
    Set<String> wanted = intersect(cg.controllers());
    try {
      cg.enable(wanted);
    } catch (IOException e) {
      LOG.log(
          Level.WARNING,
          "cannot enable " + wanted + " in " + cg + " (no per-run limits): " + e.getMessage());
    }
  }

  private static Set<String> intersect(Set<String> found) {
    Set<String> out = new LinkedHashSet<>();
    for (String c : List.of("cpu", "memory", "pids")) {
      if (found.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /** The controllers enabled for run cgroups (a subset of cpu, memory, pids). */
  public Set<String> controllers() {
    return controllers;
  }

  public Cgroup runsCgroup() {
    return runs;
  }

  public RunLimits limits() {
    return limits;
  }

  /** Creates the cgroup of one run attempt with its limits, before the run is started. */
  public RunCgroup newRun(String runId, long attempt) throws IOException {
    Cgroup cg = runs.child(safeName(runId) + "@" + attempt + "." + sequence.incrementAndGet());
    cg.create();
    try {
      if (controllers.contains("memory")) {
        cg.write("memory.max", limits.memoryMaxValue());
        // Kill the whole run, not one of its processes, when it hits its limit.
        cg.write("memory.oom.group", "1");
        if (limits.memoryMaxBytes().isPresent()
            && java.nio.file.Files.exists(cg.dir().resolve("memory.swap.max"))) {
          cg.write("memory.swap.max", "0"); // a hog is stopped by its limit, not swapped out
        }
      }
      if (controllers.contains("pids")) {
        cg.write("pids.max", limits.pidsMaxValue());
      }
      if (controllers.contains("cpu")) {
        cg.write("cpu.weight", Integer.toString(limits.cpuWeight()));
      }
    } catch (IOException e) {
      cg.remove();
      throw e;
    }
    return new RunCgroup(cg);
  }

  /** Kills and removes every run cgroup left in RUNS (by an earlier process of this journal). */
  public int sweep() {
    int swept = 0;
    List<Cgroup> left;
    try {
      left = runs.children();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "cannot list " + runs + ": " + e.getMessage());
      return 0;
    }
    for (Cgroup cg : left) {
      RunCgroup run = new RunCgroup(cg);
      if (!run.isEmpty()) {
        LOG.log(Level.WARNING, "killing processes left in " + cg + " by an earlier agent process");
        run.kill();
        long deadline = System.nanoTime() + SWEEP_WAIT_NANOS;
        while (!run.isEmpty() && System.nanoTime() < deadline) {
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      }
      run.remove();
      swept++;
    }
    return swept;
  }

  /** Removes RUNS itself at shutdown when no run is left in it. */
  public void close() {
    try {
      if (runs.children().isEmpty()) {
        runs.remove();
      }
    } catch (IOException e) {
      // left for the next start
    }
  }

  /** cgroup names: the runId's safe characters, anything else as '_'. */
  static String safeName(String runId) {
    StringBuilder b = new StringBuilder(Math.min(runId.length(), 128));
    for (int i = 0; i < runId.length() && b.length() < 128; i++) {
      char c = runId.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      b.append(ok ? c : '_');
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return runs
        + " controllers="
        + (controllers.isEmpty() ? "none" : String.join(",", controllers));
  }
}
