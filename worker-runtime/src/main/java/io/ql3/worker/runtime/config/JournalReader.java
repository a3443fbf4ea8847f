package io.ql3.worker.runtime.config;

import io.ql3.worker.runtime.config.AgentConfig.Journal;
import io.ql3.worker.runtime.config.AgentProfile.Bounds;
import io.ql3.worker.runtime.isolation.RunLimits;
import java.nio.file.Path;

/**
 * Reads the {@code [journal]} table: the journal directory and the free-space floor.
 *
 * <p>Errors ({@link ConfigException}): {@code journal.dir} missing, not a string or an empty path;
 * {@code journal.free-space-floor-mib} not an integer or out of its bounds.
 */
final class JournalReader {
  private JournalReader() {}

  /**
   * The {@code [journal]} table, the directory resolved against {@code base}; the caller finishes
   * it.
   */
  static Journal journal(ConfigTable journalTable, Path base) throws ConfigException {
    return new Journal(
        journalTable.requiredPath("dir", base),
        journalTable.optionalLong("free-space-floor-mib", 64, new Bounds(0, 1024 * 1024))
            * RunLimits.MIB);
  }
}
