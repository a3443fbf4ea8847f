package io.ql3.worker.capacity;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalFacts;

/** What the oracle reads from the journal: its status, its durable facts and its free space. */
public interface JournalView {
  Journal.Status status();

  JournalFacts facts();

  long usableSpaceBytes();

  /** How long {@link #of}'s free-space figure is reused: one second. */
  long USABLE_SPACE_TTL_NANOS = 1_000_000_000L;

  /**
   * The journal's view. Its free space is read at most once per {@link #USABLE_SPACE_TTL_NANOS} (a
   * {@code statfs} and a mount-table lookup cost more than the rest of a capacity computation,
   * which runs before every pull); the disk floor therefore acts within a second.
   */
  static JournalView of(Journal journal) {
    return new JournalView() {
      private long spaceReadAt;
      private long space = -1;

      @Override
      public Journal.Status status() {
        return journal.status();
      }

      @Override
      public JournalFacts facts() {
        return journal.facts();
      }

      @Override
      public synchronized long usableSpaceBytes() {
        long now = System.nanoTime();
        if (space < 0 || now - spaceReadAt >= USABLE_SPACE_TTL_NANOS) {
          space = journal.usableSpace();
          spaceReadAt = now;
        }
        return space;
      }
    };
  }
}
