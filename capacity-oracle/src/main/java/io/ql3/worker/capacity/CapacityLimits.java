package io.ql3.worker.capacity;

/**
 * The configured bounds of capacity. There is deliberately no way to configure a number of
 * available slots: it is always derived.
 *
 * @param maxConcurrentRuns 1..1024 (the contract's bound)
 * @param freeSpaceFloorBytes below this much free space on the journal's file system, 0 slots
 */
public record CapacityLimits(int maxConcurrentRuns, long freeSpaceFloorBytes) {
  public static final long DEFAULT_FREE_SPACE_FLOOR = 64L * 1024 * 1024;

  public CapacityLimits {
    if (maxConcurrentRuns < 1 || maxConcurrentRuns > 1024) {
      throw new IllegalArgumentException("maxConcurrentRuns must be 1..1024: " + maxConcurrentRuns);
    }
    if (freeSpaceFloorBytes < 0) {
      throw new IllegalArgumentException("freeSpaceFloorBytes must be >= 0");
    }
  }

  public static CapacityLimits of(int maxConcurrentRuns) {
    return new CapacityLimits(maxConcurrentRuns, DEFAULT_FREE_SPACE_FLOOR);
  }
}
