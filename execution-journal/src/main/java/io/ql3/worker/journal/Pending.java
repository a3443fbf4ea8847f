package io.ql3.worker.journal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One entry of the journal's append queue ({@link JournalWriter}): a record, a group of records
 * queued together, or a signal to the writer thread that carries no record.
 *
 * <p>Guarantee: a group is one entry, so the writer takes all of its records in the same batch
 * ({@link #expandGroups} flattens it there, in order). {@link #done} completes with the record's
 * sequence number once durable, or exceptionally; nothing here does I/O or waits.
 */
final class Pending {
  /** What a queue entry is: a record, a group of records, or a signal to the writer (no record). */
  enum Kind {
    RECORD,
    GROUP,
    WAKE_UP,
    STOP
  }

  /** Queued by {@code close()}: everything before it is written, anything after it refused. */
  static final Pending STOP = new Pending(Kind.STOP, null, null);

  final Kind kind;
  final JournalRecord record;

  /** Non-null: records queued as ONE entry so the writer never splits them between forces. */
  final List<Pending> group;

  final CompletableFuture<Long> done = new CompletableFuture<>();

  Pending(JournalRecord record) {
    this(Kind.RECORD, java.util.Objects.requireNonNull(record), null);
  }

  Pending(List<Pending> group) {
    this(Kind.GROUP, null, group);
  }

  private Pending(Kind kind, JournalRecord record, List<Pending> group) {
    this.kind = kind;
    this.record = record;
    this.group = group;
  }

  /** Wakes the writer so it compacts at its next batch boundary; writes nothing. */
  static Pending wakeUp() {
    return new Pending(Kind.WAKE_UP, null, null);
  }

  void fail(Throwable e) {
    if (group != null) {
      for (Pending m : group) {
        m.done.completeExceptionally(e);
      }
    }
    done.completeExceptionally(e);
  }

  /** Replaces each group entry by its records, in place and in order. */
  static void expandGroups(List<Pending> batch) {
    boolean any = false;
    for (Pending p : batch) {
      if (p.group != null) {
        any = true;
        break;
      }
    }
    if (!any) {
      return;
    }
    List<Pending> flat = new ArrayList<>(batch.size() + 8);
    for (Pending p : batch) {
      if (p.group != null) {
        flat.addAll(p.group);
      } else {
        flat.add(p);
      }
    }
    batch.clear();
    batch.addAll(flat);
  }
}
