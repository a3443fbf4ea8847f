package io.ql3.worker.transport;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Bounded exponential reconnect delay with "equal jitter": attempt n waits between half and all
 * of min(max, base * 2^(n-1)), so a fleet does not reconnect in lockstep and nothing hot-loops.
 */
final class Backoff {
    private final long baseNanos;
    private final long maxNanos;
    private final DoubleSupplier random;

    Backoff(Duration base, Duration max, DoubleSupplier random) {
        this.baseNanos = base.toNanos();
        this.maxNanos = Math.max(max.toNanos(), baseNanos);
        this.random = random;
    }

    /** @param failures consecutive failed attempts, at least 1 */
    long delayNanos(int failures) {
        int shift = Math.min(Math.max(failures - 1, 0), 30);
        long ceiling = baseNanos > (maxNanos >> shift) ? maxNanos : Math.min(maxNanos, baseNanos << shift);
        double r = random.getAsDouble();
        return ceiling / 2 + (long) (ceiling / 2.0 * r);
    }
}
