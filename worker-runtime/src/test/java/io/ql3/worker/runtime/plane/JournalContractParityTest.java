package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The journal mirrors some contract types and limits because it must not depend on the contract
 * (module graph; its on-disk codes never follow a wire change). Here, where both are visible, each
 * mirrored rule is pinned to the contract's owner, and {@link JournalMapping} is checked to map
 * every constant to its namesake both ways.
 */
class JournalContractParityTest {
  private static <E extends Enum<E>> List<String> names(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(Enum::name).toList();
  }

  @Test
  void outcomesAreTheSameAndMapToTheirNamesakeBothWays() {
    assertThat(names(io.ql3.worker.journal.Outcome.class))
        .containsExactlyInAnyOrderElementsOf(names(io.ql3.worker.contract.Outcome.class));
    for (io.ql3.worker.contract.Outcome o : io.ql3.worker.contract.Outcome.values()) {
      assertThat(JournalMapping.toJournal(o).name()).isEqualTo(o.name());
      assertThat(JournalMapping.toWire(JournalMapping.toJournal(o))).isSameAs(o);
    }
  }

  @Test
  void failureCategoriesAreTheSameAndMapToTheirNamesakeBothWays() {
    assertThat(names(io.ql3.worker.journal.FailureCategory.class))
        .containsExactlyInAnyOrderElementsOf(names(io.ql3.worker.contract.FailureCategory.class));
    for (io.ql3.worker.contract.FailureCategory c :
        io.ql3.worker.contract.FailureCategory.values()) {
      assertThat(JournalMapping.toJournal(c).name()).isEqualTo(c.name());
      assertThat(JournalMapping.toWire(JournalMapping.toJournal(c))).isSameAs(c);
    }
  }

  @Test
  void theJournalsDispositionIsTheContractsPlusTheLocalUndeliverable() {
    assertThat(names(io.ql3.worker.journal.Disposition.class))
        .containsExactlyInAnyOrderElementsOf(
            concat(names(io.ql3.worker.contract.Disposition.class), "UNDELIVERABLE"));
    for (io.ql3.worker.contract.Disposition d : io.ql3.worker.contract.Disposition.values()) {
      assertThat(JournalMapping.toJournal(d).name()).isEqualTo(d.name());
    }
  }

  @Test
  void sessionStatusesAreTheSame() {
    assertThat(names(io.ql3.worker.journal.SessionStatus.class))
        .containsExactlyInAnyOrderElementsOf(names(io.ql3.worker.contract.SessionStatus.class));
  }

  @Test
  void failureLimitsAreTheContracts() {
    assertThat(io.ql3.worker.journal.Failure.CODE_PATTERN)
        .isEqualTo(io.ql3.worker.contract.Failure.CODE_PATTERN);
    assertThat(io.ql3.worker.journal.Failure.MAX_MESSAGE_CHARS)
        .isEqualTo(io.ql3.worker.contract.Failure.MAX_MESSAGE_CHARS);
    io.ql3.worker.contract.Failure longest =
        new io.ql3.worker.contract.Failure(
            io.ql3.worker.contract.FailureCategory.PERMANENT,
            "a" + "_".repeat(63),
            "m".repeat(1024));
    assertThat(JournalMapping.toWire(JournalMapping.toJournal(longest))).isEqualTo(longest);
  }

  @Test
  void theTailBoundIsTheContracts() {
    assertThat(io.ql3.worker.journal.RunResult.MAX_TAIL_BYTES)
        .isEqualTo(io.ql3.worker.contract.RunResult.MAX_OUTPUT_TAIL_BYTES);
  }

  @Test
  void theJournalsRunResultCarriesEveryFieldOfTheContracts() {
    List<String> journal = components(io.ql3.worker.journal.RunResult.class);
    assertThat(journal).containsAll(components(io.ql3.worker.contract.RunResult.class));
    assertThat(components(io.ql3.worker.journal.Failure.class))
        .containsExactlyElementsOf(components(io.ql3.worker.contract.Failure.class));
  }

  private static List<String> components(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
  }

  private static List<String> concat(List<String> a, String b) {
    return java.util.stream.Stream.concat(a.stream(), java.util.stream.Stream.of(b)).toList();
  }
}
