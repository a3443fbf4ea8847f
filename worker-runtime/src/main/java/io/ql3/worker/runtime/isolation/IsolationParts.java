package io.ql3.worker.runtime.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checks behind {@link Isolation#resolve}, one per part: whether runs can switch to the run
 * uids (a free range, the capabilities, setpriv, a reachable work directory), and whether the
 * agent's cgroup is a writable cgroup v2 directory it can build the run subtree in. Each throws
 * {@link Missing} with the reason an operator can act on.
 */
final class IsolationParts {

  private IsolationParts() {}

  static RunAccounts userSwitch(IsolationSettings s, IsolationHost host, Path workDir)
      throws Missing {
    RunAccounts range = s.accounts(host.accounts());
    ProcessIdentity self;
    try {
      self = ProcessIdentity.read(host.selfStatus());
    } catch (IOException e) {
      throw new Missing("cannot read " + host.selfStatus() + ": " + e.getMessage());
    }
    String ids = "run " + range + " (" + s.runAs().describe() + ", one per slot)";
    if (range.containsUid(self.uid())
        || range.containsGid(self.gid())
        || self.groups().stream().anyMatch(range::containsGid)) {
      throw new Missing(
          ids + " include the agent's own uid " + self.uid() + " or one of its groups");
    }
    String busy = RunProcessScan.describeFirst(host.proc(), range);
    if (busy != null) {
      throw new Missing(
          ids
              + " are in use: "
              + busy
              + " (another worker on this host whose run ids overlap these?)");
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

  static CgroupSubtree cgroup(IsolationSettings s, IsolationHost host, String runsName)
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

  /** A part that is not available, with the reason. */
  static final class Missing extends Exception {
    Missing(String message) {
      super(message, null, false, false);
    }
  }
}
