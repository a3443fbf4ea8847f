package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code ql3-worker check} says about isolation, without side effects: {@code check} runs from
 * an operator's shell, not in the service's cgroup and not with its capabilities, so it checks what
 * it can see from there (the run uid range against the named accounts, setpriv, the work
 * directory's path, a cgroup v2 hierarchy with {@code cgroup.kill} and its controllers) and leaves
 * the capabilities and the delegated cgroup to {@code run}, which refuses to start in {@code
 * required} mode when they are missing.
 *
 * @param lines one line per part, for printing
 * @param missing what {@code required} lacks (empty in {@code auto} and {@code none})
 */
public record IsolationProbe(List<String> lines, List<String> missing) {

  public static IsolationProbe of(IsolationSettings s, IsolationHost host, Path workDir) {
    List<String> lines = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    lines.add("mode " + s.mode().configName());
    if (s.mode() == IsolationMode.NONE) {
      lines.add(
          "runs execute as the agent's own user without a cgroup (a run can read the credentials)");
      return new IsolationProbe(lines, List.of());
    }
    try {
      RunAccounts range = s.accounts(host.accounts());
      lines.add(
          "run accounts "
              + range
              + " ("
              + s.runAs().describe()
              + " and the ids after it, one per slot; no other named account uses them)");
    } catch (IsolationParts.Missing e) {
      problems.add(e.getMessage());
    }
    if (!Files.isExecutable(host.setpriv())) {
      problems.add(host.setpriv() + " (util-linux setpriv) is missing");
    }
    try {
      Optional<CgroupLocation> where = CgroupLocation.find(host.mountinfo(), host.selfCgroup());
      if (where.isEmpty()) {
        problems.add("no cgroup v2 hierarchy is mounted");
      } else {
        Cgroup root = new Cgroup(where.get().mount());
        lines.add(
            "cgroup v2 at "
                + where.get().mount()
                + ", controllers "
                + String.join(" ", root.controllers())
                + ", cgroup.kill "
                + (Files.exists(where.get().own().resolve("cgroup.kill"))
                    ? "yes"
                    : "no (kernel < 5.14)"));
      }
    } catch (IOException e) {
      problems.add("cannot read the cgroup hierarchy: " + e.getMessage());
    }
    lines.add(
        "the service's capabilities (CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL) and delegated cgroup are"
            + " checked by run at start");
    List<String> missing = s.mode() == IsolationMode.REQUIRED ? problems : List.of();
    if (s.mode() == IsolationMode.AUTO) {
      problems.forEach(p -> lines.add("not available: " + p));
    }
    return new IsolationProbe(lines, missing);
  }
}
