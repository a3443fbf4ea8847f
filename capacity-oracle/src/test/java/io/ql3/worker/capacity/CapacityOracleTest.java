package io.ql3.worker.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.capacity.Capacity.Limit;
import io.ql3.worker.journal.Disposition;
import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalConfig;
import io.ql3.worker.journal.JournalFacts;
import io.ql3.worker.journal.JournalRecord.CompletionAcknowledged;
import io.ql3.worker.journal.JournalRecord.DrainBegun;
import io.ql3.worker.journal.JournalRecord.OfferAccepted;
import io.ql3.worker.journal.JournalRecord.Offline;
import io.ql3.worker.journal.JournalRecord.PullClosed;
import io.ql3.worker.journal.JournalRecord.PullReserved;
import io.ql3.worker.journal.JournalRecord.ResultRecorded;
import io.ql3.worker.journal.JournalRecord.RunStarted;
import io.ql3.worker.journal.JournalRecord.SessionRegistered;
import io.ql3.worker.journal.Outcome;
import io.ql3.worker.journal.RunKey;
import io.ql3.worker.journal.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every lifecycle phase against every journal state, on real journals (real files); only the
 * free-space number and the FAILED status are injected at the {@link JournalView} seam (a disk
 * cannot be filled, nor an fsync made to fail, from here).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CapacityOracleTest {
  private static final int MAX = 8;
  private static final String WORKER = "worker-1";
  private static final String SESSION = "0190a8c4-1c2d-7abc-8def-0123456789ab";
  private static final long MIB = 1024 * 1024;

  /** Journal states used by the table. */
  enum JState {
    NO_SESSION,
    ACTIVE_IDLE,
    ACTIVE_HELD,
    ACTIVE_OVERBOOKED,
    DRAINING,
    OFFLINE,
    FOREIGN_RECOVERY,
    CLOSED,
    FAILED
  }

  @TempDir static Path tmp;
  private final Map<JState, JournalView> views = new EnumMap<>(JState.class);
  private final List<Journal> open = new ArrayList<>();

  @BeforeAll
  void buildJournals() {
    for (JState s : JState.values()) {
      views.put(s, build(s, tmp.resolve(s.name())));
    }
  }

  @AfterAll
  void closeJournals() {
    open.forEach(Journal::close);
  }

  private JournalView build(JState s, Path dir) {
    JournalConfig cfg = JournalConfig.of(dir, WORKER).withSegmentBytes(256 * 1024);
    if (s == JState.FOREIGN_RECOVERY) {
      try (Journal other =
          Journal.open(JournalConfig.of(dir, "someone-else").withSegmentBytes(256 * 1024))) {
        other.append(new SessionRegistered(SESSION, 1));
      }
    }
    Journal j = Journal.open(cfg);
    open.add(j);
    if (s != JState.FOREIGN_RECOVERY && s != JState.NO_SESSION) {
      j.append(new SessionRegistered(SESSION, 1));
    }
    switch (s) {
      case ACTIVE_HELD -> {
        j.append(offer("accepted"));
        j.append(offer("running"));
        j.append(new RunStarted("running", 1, 100, 1));
        j.append(offer("pending"));
        j.append(result("pending"));
        j.append(offer("settled"));
        j.append(result("settled"));
        j.append(new CompletionAcknowledged("settled", 1, Disposition.ACCEPTED));
        j.append(new PullReserved("pull-open", 2));
        j.append(new PullReserved("pull-closed", 4));
        j.append(new PullClosed("pull-closed"));
      }
      case ACTIVE_OVERBOOKED -> {
        for (int i = 0; i < 6; i++) {
          j.append(offer("r" + i));
        }
        j.append(new PullReserved("pull", 5)); // 6 + 5 > 8: clamps to 0
      }
      case DRAINING -> j.append(new DrainBegun(SESSION, 1));
      case OFFLINE -> j.append(new Offline(SESSION, 1));
      case CLOSED -> j.close();
      default -> {}
    }
    JournalView real = JournalView.of(j);
    if (s == JState.FAILED) {
      return new JournalView() {
        @Override
        public Journal.Status status() {
          return Journal.Status.FAILED;
        }

        @Override
        public JournalFacts facts() {
          return real.facts();
        }

        @Override
        public long usableSpaceBytes() {
          return real.usableSpaceBytes();
        }
      };
    }
    return real;
  }

  private static OfferAccepted offer(String id) {
    return new OfferAccepted(
        id, 1, SESSION, 1, "process", "sha256:" + "00".repeat(32), "k-" + id, 1000);
  }

  private static ResultRecorded result(String id) {
    return new ResultRecorded(id, 1, new RunResult(Outcome.SUCCEEDED, null, 1, 0, 0, ""));
  }

  static Stream<Arguments> table() {
    List<Arguments> rows = new ArrayList<>();
    for (LifecyclePhase phase : LifecyclePhase.values()) {
      for (JState js : JState.values()) {
        rows.add(Arguments.of(phase, js, expectedSlots(phase, js), expectedLimit(phase, js)));
      }
    }
    return rows.stream();
  }

  private static int expectedSlots(LifecyclePhase phase, JState js) {
    if (expectedLimit(phase, js) != Limit.HELD_AND_RESERVED) {
      return 0;
    }
    return switch (js) {
      case NO_SESSION, ACTIVE_IDLE, DRAINING, OFFLINE -> MAX; // only REGISTERING reaches these
      case ACTIVE_HELD -> MAX - 3 - 2;
      case ACTIVE_OVERBOOKED -> 0;
      default -> throw new IllegalStateException();
    };
  }

  private static Limit expectedLimit(LifecyclePhase phase, JState js) {
    if (phase == LifecyclePhase.RECOVERY_REQUIRED) {
      return Limit.JOURNAL_RECOVERY_REQUIRED;
    }
    if (phase != LifecyclePhase.ACTIVE && phase != LifecyclePhase.REGISTERING) {
      return Limit.LIFECYCLE;
    }
    if (js == JState.FOREIGN_RECOVERY) {
      return Limit.JOURNAL_RECOVERY_REQUIRED;
    }
    if (js == JState.CLOSED || js == JState.FAILED) {
      return Limit.JOURNAL_UNUSABLE;
    }
    if (phase == LifecyclePhase.ACTIVE
        && (js == JState.NO_SESSION || js == JState.DRAINING || js == JState.OFFLINE)) {
      return Limit.SESSION_NOT_ACTIVE;
    }
    return Limit.HELD_AND_RESERVED;
  }

  @ParameterizedTest(name = "{0} x {1} -> {2} ({3})")
  @MethodSource("table")
  void everyLifecyclePhaseAgainstEveryJournalState(
      LifecyclePhase phase, JState js, int slots, Limit limit) {
    Capacity c = new CapacityOracle(CapacityLimits.of(MAX), views.get(js)).compute(phase);
    assertThat(c).isEqualTo(new Capacity(slots, MAX, limit));
  }

  @ParameterizedTest(name = "free {0} MiB, floor {1} MiB -> {2}")
  @MethodSource("diskRows")
  void diskSpaceFloor(long freeMiB, long floorMiB, int slots, Limit limit) {
    JournalView real = views.get(JState.ACTIVE_HELD);
    JournalView lowDisk =
        new JournalView() {
          @Override
          public Journal.Status status() {
            return real.status();
          }

          @Override
          public JournalFacts facts() {
            return real.facts();
          }

          @Override
          public long usableSpaceBytes() {
            return freeMiB * MIB;
          }
        };
    Capacity c =
        new CapacityOracle(new CapacityLimits(MAX, floorMiB * MIB), lowDisk)
            .compute(LifecyclePhase.ACTIVE);
    assertThat(c).isEqualTo(new Capacity(slots, MAX, limit));
  }

  static Stream<Arguments> diskRows() {
    return Stream.of(
        Arguments.of(0L, 64L, 0, Limit.DISK_SPACE),
        Arguments.of(63L, 64L, 0, Limit.DISK_SPACE),
        Arguments.of(64L, 64L, 3, Limit.HELD_AND_RESERVED),
        Arguments.of(10_000L, 64L, 3, Limit.HELD_AND_RESERVED),
        Arguments.of(0L, 0L, 3, Limit.HELD_AND_RESERVED));
  }

  @Test
  void realFreeSpaceWithTheDefaultFloor() {
    Capacity c =
        new CapacityOracle(CapacityLimits.of(MAX), views.get(JState.ACTIVE_HELD))
            .compute(LifecyclePhase.ACTIVE);
    assertThat(views.get(JState.ACTIVE_HELD).usableSpaceBytes()).isGreaterThan(64 * MIB);
    assertThat(c.availableSlots()).isEqualTo(3);
  }

  @Test
  void slotsFollowTheJournalAsRunsComeAndGo() {
    try (Journal j =
        Journal.open(JournalConfig.of(tmp.resolve("live"), WORKER).withSegmentBytes(256 * 1024))) {
      CapacityOracle oracle = new CapacityOracle(CapacityLimits.of(2), j);
      assertThat(oracle.compute(LifecyclePhase.REGISTERING).availableSlots()).isEqualTo(2);
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots()).isZero();
      j.append(new SessionRegistered(SESSION, 1));
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots()).isEqualTo(2);
      j.append(new PullReserved("p", 2));
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots()).isZero();
      j.append(offer("a"));
      j.append(new PullClosed("p"));
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots()).isEqualTo(1);
      j.append(result("a"));
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots())
          .isEqualTo(1); // awaiting delivery
      j.append(new CompletionAcknowledged("a", 1, Disposition.DUPLICATE));
      assertThat(oracle.compute(LifecyclePhase.ACTIVE).availableSlots()).isEqualTo(2);
      assertThat(oracle.compute(LifecyclePhase.DRAINING).availableSlots()).isZero();
    }
  }

  @Test
  void aHeldRunWhoseSettlementIsQueuedAheadCountsAsFreeOnce() {
    CapacityOracle oracle =
        new CapacityOracle(CapacityLimits.of(MAX), views.get(JState.ACTIVE_HELD));
    // Held: accepted, running, pending (3); reserved 2: 3 free without settlements.
    assertThat(
            oracle
                .compute(
                    LifecyclePhase.ACTIVE,
                    QueuedAhead.settling(
                        List.of(new RunKey("pending", 1), new RunKey("running", 1))))
                .availableSlots())
        .isEqualTo(5);
    // "settled" is no longer held by the facts (its acknowledgement already landed), "unknown"
    // never was: neither is counted again.
    assertThat(
            oracle
                .compute(
                    LifecyclePhase.ACTIVE,
                    QueuedAhead.settling(
                        List.of(new RunKey("settled", 1), new RunKey("unknown", 1))))
                .availableSlots())
        .isEqualTo(3);
  }

  @Test
  void aReservationClosedAheadFreesItsSlotsAndOffersAcceptedAheadTakeThem() {
    CapacityOracle oracle =
        new CapacityOracle(CapacityLimits.of(MAX), views.get(JState.ACTIVE_HELD));
    // 8 - 3 held - 2 reserved by "pull-open" = 3; its close queued ahead gives back 2, and two of
    // its offers accepted ahead take 2: 3 again.
    assertThat(
            oracle
                .compute(
                    LifecyclePhase.ACTIVE,
                    new QueuedAhead(
                        List.of(),
                        List.of("pull-open"),
                        List.of(new RunKey("n1", 1), new RunKey("n2", 1))))
                .availableSlots())
        .isEqualTo(3);
    // A close of a pull the facts no longer hold ("pull-closed") gives back nothing, an acceptance
    // of an attempt the facts already hold ("running") takes nothing more.
    assertThat(
            oracle
                .compute(
                    LifecyclePhase.ACTIVE,
                    new QueuedAhead(
                        List.of(), List.of("pull-closed"), List.of(new RunKey("running", 1))))
                .availableSlots())
        .isEqualTo(3);
    // Everything at once: settling "pending" (+1), closing "pull-open" (+2), one new offer (-1).
    assertThat(
            oracle
                .compute(
                    LifecyclePhase.ACTIVE,
                    new QueuedAhead(
                        List.of(new RunKey("pending", 1)),
                        List.of("pull-open"),
                        List.of(new RunKey("n1", 1))))
                .availableSlots())
        .isEqualTo(5);
  }

  @Test
  void whatIsQueuedAheadChangesNoZeroRule() {
    QueuedAhead pending =
        new QueuedAhead(
            List.of(new RunKey("pending", 1)), List.of("pull-open"), List.of(new RunKey("n", 1)));
    assertThat(
            new CapacityOracle(CapacityLimits.of(MAX), views.get(JState.ACTIVE_HELD))
                .compute(LifecyclePhase.DRAINING, pending))
        .isEqualTo(new Capacity(0, MAX, Limit.LIFECYCLE));
    assertThat(
            new CapacityOracle(
                    new CapacityLimits(MAX, Long.MAX_VALUE), views.get(JState.ACTIVE_HELD))
                .compute(LifecyclePhase.ACTIVE, pending))
        .isEqualTo(new Capacity(0, MAX, Limit.DISK_SPACE));
    assertThat(
            new CapacityOracle(CapacityLimits.of(MAX), views.get(JState.ACTIVE_OVERBOOKED))
                .compute(LifecyclePhase.ACTIVE, QueuedAhead.settling(List.of(new RunKey("r0", 1)))))
        .as("6 held, 5 reserved, one settling: still overbooked")
        .isEqualTo(new Capacity(0, MAX, Limit.HELD_AND_RESERVED));
  }

  @Test
  void limitsAreBounded() {
    assertThatThrownBy(() -> CapacityLimits.of(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CapacityLimits.of(1025)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CapacityLimits(1, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
