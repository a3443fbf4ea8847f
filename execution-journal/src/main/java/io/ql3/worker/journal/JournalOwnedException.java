package io.ql3.worker.journal;

import java.nio.file.Path;
import java.util.OptionalLong;

/** Another process (or another open in this JVM) owns the journal directory. */
public final class JournalOwnedException extends JournalException {
  private static final long serialVersionUID = 1L;
  private final transient Path directory;
  private final long ownerPid;

  public JournalOwnedException(Path directory, OptionalLong ownerPid) {
    super(
        "journal "
            + directory
            + " is owned by "
            + (ownerPid.isPresent()
                ? "pid " + ownerPid.getAsLong()
                : "another process (pid not yet recorded)"));
    this.directory = directory;
    this.ownerPid = ownerPid.orElse(-1);
  }

  public Path directory() {
    return directory;
  }

  public OptionalLong ownerPid() {
    return ownerPid < 0 ? OptionalLong.empty() : OptionalLong.of(ownerPid);
  }
}
