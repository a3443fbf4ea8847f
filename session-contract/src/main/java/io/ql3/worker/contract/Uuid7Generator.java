package io.ql3.worker.contract;

import java.time.Clock;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * Generates lowercase canonical UUIDv7 strings (RFC 9562) for session and pull ids.
 *
 * <p>Monotonic: within one millisecond, or when the clock steps back, the 74 random bits are
 * incremented as one counter (RFC 9562 section 6.2, method 2), carrying into the timestamp on
 * overflow, so ids from one generator are strictly increasing. Thread-safe.
 */
public final class Uuid7Generator {
  private static final long RAND_B_MASK = (1L << 62) - 1;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final LongSupplier millis;
  private final RandomGenerator random;
  private long lastMillis = Long.MIN_VALUE;
  private int randA; // 12 bits
  private long randB; // 62 bits

  public Uuid7Generator(Clock clock, RandomGenerator random) {
    this(Objects.requireNonNull(clock, "clock")::millis, random);
  }

  public Uuid7Generator(LongSupplier millis, RandomGenerator random) {
    this.millis = Objects.requireNonNull(millis, "millis");
    this.random = Objects.requireNonNull(random, "random");
  }

  public SessionId nextSessionId() {
    return new SessionId(next());
  }

  public PullId nextPullId() {
    return new PullId(next());
  }

  /** The next id as a lowercase canonical string. */
  public synchronized String next() {
    long now = millis.getAsLong() & 0xFFFF_FFFF_FFFFL;
    if (now > lastMillis) {
      lastMillis = now;
      randA = random.nextInt() & 0xFFF;
      randB = random.nextLong() & RAND_B_MASK;
    } else {
      // Same millisecond (or clock stepped back): count up from the last value.
      if (randB == RAND_B_MASK) {
        randB = 0;
        if (randA == 0xFFF) {
          randA = 0;
          lastMillis = (lastMillis + 1) & 0xFFFF_FFFF_FFFFL;
        } else {
          randA++;
        }
      } else {
        randB++;
      }
    }
    long hi = (lastMillis << 16) | 0x7000L | randA;
    long lo = (2L << 62) | randB;
    return format(hi, lo);
  }

  private static String format(long hi, long lo) {
    char[] c = new char[36];
    int p = 0;
    for (int i = 15; i >= 0; i--) {
      if (i == 7 || i == 3) {
        c[p++] = '-';
      }
      c[p++] = HEX[(int) (hi >>> (i * 4)) & 0xF];
    }
    for (int i = 15; i >= 0; i--) {
      if (i == 15 || i == 11) {
        c[p++] = '-';
      }
      c[p++] = HEX[(int) (lo >>> (i * 4)) & 0xF];
    }
    return new String(c);
  }
}
