package io.ql3.worker.journal;

import static io.ql3.worker.journal.Journal.Status.CLOSED;
import static io.ql3.worker.journal.Journal.Status.FAILED;
import static io.ql3.worker.journal.Journal.Status.OPEN;
import static io.ql3.worker.journal.Journal.Status.RECOVERY_REQUIRED;
import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.journal.Journal.Status;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The journal status's transition table, every pair of statuses against the expected answer. */
class JournalStatusTransitionsTest {
  private static final Map<Status, Set<Status>> MOVES =
      Map.of(
          OPEN, EnumSet.of(FAILED, CLOSED),
          RECOVERY_REQUIRED, EnumSet.of(CLOSED),
          FAILED, EnumSet.of(CLOSED),
          CLOSED, EnumSet.noneOf(Status.class));

  @Test
  void anOpenJournalMayFailAndEveryJournalEndsClosed() {
    for (Status from : Status.values()) {
      for (Status to : Status.values()) {
        boolean expected = MOVES.get(from).contains(to);
        assertThat(from.canMoveTo(to)).as("%s -> %s", from, to).isEqualTo(expected);
      }
    }
  }
}
