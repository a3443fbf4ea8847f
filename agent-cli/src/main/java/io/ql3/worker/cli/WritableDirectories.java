package io.ql3.worker.cli;

import io.ql3.worker.runtime.config.AgentConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code check}: the directories the agent writes (journal, run work directories, and those of the
 * status and metrics files where they exist) are writable by whoever runs the check, proven by
 * creating and deleting a file in each; a directory that does not exist yet must be creatable (its
 * nearest existing parent writable).
 */
final class WritableDirectories {
  private WritableDirectories() {}

  /** Prints one line per directory; false when one is not writable. */
  static boolean report(AgentConfig c, PrintWriter out, PrintWriter err) {
    Map<String, Path> dirs = new LinkedHashMap<>();
    dirs.put("journal.dir", c.journal().dir());
    dirs.put("execution.work-dir", c.execution().workDir());
    // The status and metrics files are replaced through a temporary file beside them. The agent
    // does not create their directories: one not there yet (systemd's RuntimeDirectory= makes it
    // at start) is a note, not a failure.
    Map<String, Path> fileDirs = new LinkedHashMap<>();
    c.statusFile().ifPresent(f -> fileDirs.put("status.file's directory", f.getParent()));
    c.metricsFile().ifPresent(f -> fileDirs.put("metrics.file's directory", f.getParent()));
    for (Map.Entry<String, Path> e : fileDirs.entrySet()) {
      if (Files.exists(e.getValue())) {
        dirs.put(e.getKey(), e.getValue());
      } else {
        out.println(
            "directories: note: "
                + e.getKey()
                + " "
                + e.getValue()
                + " does not exist yet; the agent does not create it (the unit's"
                + " RuntimeDirectory= or StateDirectory= does at start, or create it)");
      }
    }
    boolean ok = true;
    StringBuilder line = new StringBuilder("directories: ok (");
    for (Map.Entry<String, Path> e : dirs.entrySet()) {
      String problem = problem(e.getValue());
      if (problem != null) {
        err.println("directories: " + e.getKey() + " " + e.getValue() + ": " + problem);
        ok = false;
      } else {
        line.append(line.charAt(line.length() - 1) == '(' ? "" : ", ")
            .append(e.getKey())
            .append(' ')
            .append(e.getValue())
            .append(" writable");
      }
    }
    if (ok) {
      out.println(line.append(')'));
    }
    return ok;
  }

  /** Why {@code dir} cannot be written, or null. */
  static String problem(Path dir) {
    Path probe = dir;
    while (probe != null && !Files.exists(probe)) {
      probe = probe.getParent();
    }
    if (probe == null) {
      return "no existing parent directory";
    }
    if (!Files.isDirectory(probe)) {
      return probe + " is not a directory";
    }
    try {
      Path f = Files.createTempFile(probe, ".ql3-check-", ".tmp");
      Files.delete(f);
    } catch (IOException | SecurityException e) {
      return (probe.equals(dir)
              ? "not writable"
              : "does not exist and " + probe + " is not writable")
          + " ("
          + e.getMessage()
          + "); it must be writable by the agent's user";
    }
    return null;
  }
}
