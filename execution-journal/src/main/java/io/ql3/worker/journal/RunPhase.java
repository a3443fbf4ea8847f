package io.ql3.worker.journal;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Phase of one run attempt in the journal, with its table of allowed transitions. The journal
 * refuses any record that would take a run along an edge not in this table.
 */
public enum RunPhase implements DiskCode {
  /** Offer accepted and durable; the process is not launched yet. */
  ACCEPTED(0),
  /** Run started is durable (written before launch). After a crash: outcome uncertain. */
  STARTED(1),
  /** Result durable; the completion is not acknowledged yet. */
  RESULT_RECORDED(2),
  /** Acknowledged, superseded or resolved by an operator. */
  SETTLED(3);

  private static final Map<RunPhase, Set<RunPhase>> ALLOWED = new EnumMap<>(RunPhase.class);

  static {
    ALLOWED.put(ACCEPTED, EnumSet.of(STARTED, RESULT_RECORDED, SETTLED));
    ALLOWED.put(STARTED, EnumSet.of(RESULT_RECORDED, SETTLED));
    ALLOWED.put(RESULT_RECORDED, EnumSet.of(SETTLED));
    ALLOWED.put(SETTLED, EnumSet.noneOf(RunPhase.class));
  }

  private final byte code;

  RunPhase(int code) {
    this.code = (byte) code;
  }

  @Override
  public byte code() {
    return code;
  }

  public boolean canMoveTo(RunPhase next) {
    return ALLOWED.get(this).contains(next);
  }
}
