package io.ql3.worker.capacity;

import io.ql3.worker.journal.RunKey;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * What is queued in the journal ahead of a record and may not be durable yet. The record becomes
 * durable only after all of it (the journal commits in order), so what the record commits to (a
 * pull reservation) is sized as if all of it were durable. Each part changes the count only where
 * the durable facts do not show it yet, so nothing is counted twice.
 *
 * @param settling attempts whose settlement (acknowledged or superseded) is queued: a held one
 *     counts as free
 * @param closing pull reservations whose close is queued: an open one no longer reserves its slots
 * @param accepting attempts whose "offer accepted" is queued: one not held yet takes a slot
 */
public record QueuedAhead(
    Collection<RunKey> settling, Collection<String> closing, Collection<RunKey> accepting) {
  /** Nothing queued ahead: the durable facts alone. */
  public static final QueuedAhead NOTHING = new QueuedAhead(List.of(), List.of(), List.of());

  public QueuedAhead {
    Objects.requireNonNull(settling, "settling");
    Objects.requireNonNull(closing, "closing");
    Objects.requireNonNull(accepting, "accepting");
  }

  /** Only settlements queued ahead. */
  public static QueuedAhead settling(Collection<RunKey> settling) {
    return new QueuedAhead(settling, List.of(), List.of());
  }
}
