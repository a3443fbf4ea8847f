package io.ql3.worker.runtime;

import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.isolation.Isolation;
import io.ql3.worker.runtime.isolation.IsolationException;
import io.ql3.worker.runtime.isolation.IsolationHost;
import io.ql3.worker.runtime.isolation.IsolationMode;
import io.ql3.worker.runtime.log.EventLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Resolves run isolation for {@code run}: one log line saying which parts are in force, a warning
 * for each part that is not, the work root's and the journal's modes set against the run accounts
 * (whatever the umask was when they were made), and what runs of an earlier start left in the work
 * root removed as their accounts.
 */
public final class IsolationStartup {

  private IsolationStartup() {}

  /**
   * @throws IsolationException {@code required} and a part is missing
   * @throws IOException the work directory's modes cannot be set
   */
  static Isolation open(AgentConfig config, EventLog log) throws IsolationException, IOException {
    Isolation isolation = resolve(config, IsolationHost.system());
    isolation.prepareWorkRoot(config.execution().workDir());
    int left = isolation.sweepWorkDirectories(config.execution().workDir().resolve("runs"));
    if (left > 0) {
      log.error(
          "isolation.leftovers",
          "left",
          left,
          "problem",
          "work directories of runs of an earlier start could not be removed; their uids are not used");
    }
    if (isolation.accounts().isPresent()) {
      // Whatever the umask was when it was made: the journal is the agent's alone.
      Files.setAttribute(config.journal().dir(), "unix:mode", 0700, LinkOption.NOFOLLOW_LINKS);
    }
    List<Object> kv = new ArrayList<>();
    for (Map.Entry<String, String> e : isolation.describe().entrySet()) {
      if (!e.getKey().endsWith("_inactive")) {
        kv.add(e.getKey());
        kv.add(e.getValue());
      }
    }
    log.info("isolation.active", kv.toArray());
    if (isolation.mode() == IsolationMode.NONE) {
      log.warn(
          "isolation.none",
          "problem",
          "runs execute as the agent's own user without a cgroup: a run can read the agent's credentials and"
              + " journal, and what it starts can outlive it (execution.isolation = \"none\")");
    } else {
      isolation
          .inactive()
          .forEach((part, why) -> log.warn("isolation.inactive", "part", part, "why", why));
    }
    return isolation;
  }

  /** Resolves against {@code host}; side effects only when a cgroup is set up (moves, sweep). */
  public static Isolation resolve(AgentConfig config, IsolationHost host)
      throws IsolationException {
    return Isolation.resolve(
        config.execution().isolation(),
        host,
        config.execution().workDir(),
        runsCgroupName(config.journal().dir()));
  }

  /** {@code ql3-runs-HASH}: one subtree per journal, so agents sharing a cgroup never collide. */
  public static String runsCgroupName(Path journalDir) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  journalDir
                      .toAbsolutePath()
                      .normalize()
                      .toString()
                      .getBytes(StandardCharsets.UTF_8));
      return "ql3-runs-" + HexFormat.of().formatHex(d, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
