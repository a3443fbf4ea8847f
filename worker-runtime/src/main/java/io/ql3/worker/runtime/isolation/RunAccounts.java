package io.ql3.worker.runtime.isolation;

import java.util.BitSet;
import java.util.Optional;

/**
 * The run accounts of one agent: uids (and gids of the same number) {@code base … base+size-1}, one
 * per slot ({@code execution.run-uid-base}; size = {@code execution.slots}). A run holds its
 * account from prepare until its processes are gone and its work directory is removed, so two runs
 * that exist at the same time never share a uid: neither can signal, trace or read the other's
 * processes ({@code /proc/PID/environ}, {@code cwd}, {@code fd}) or enter the other's work
 * directory. The ids need no passwd or group entry ({@code setpriv} takes numbers); at start {@link
 * Isolation} refuses a range that a named account or a running process already uses.
 *
 * <p>An account whose work directory could not be removed is never handed out again by this process
 * ({@link #retire}): the next run with that uid could read what is left.
 */
public final class RunAccounts {

  /**
   * Default first uid: in the range systemd leaves unused (65536–524287), below subuid ranges
   * (100000+).
   */
  public static final long DEFAULT_BASE = 70_000;

  /**
   * Highest uid a range may reach (uid_t is 32 bits; some tools treat ids above 2^31 as negative).
   */
  public static final long MAX_UID = 2_147_483_646L;

  private final long base;
  private final int size;
  private final BitSet held = new BitSet();
  private final BitSet retired = new BitSet();

  public RunAccounts(long base, int size) {
    if (size < 1 || base < 1 || base + size - 1 > MAX_UID) {
      throw new IllegalArgumentException(
          "run uid range " + base + "+" + size + " is outside 1.." + MAX_UID);
    }
    this.base = base;
    this.size = size;
  }

  public long first() {
    return base;
  }

  public long last() {
    return base + size - 1;
  }

  public int size() {
    return size;
  }

  public boolean contains(long id) {
    return id >= base && id <= last();
  }

  /** The lowest free account, or empty when every one is held or retired. */
  public synchronized Optional<RunAccount> acquire() {
    BitSet busy = (BitSet) held.clone();
    busy.or(retired);
    int i = busy.nextClearBit(0);
    if (i >= size) {
      return Optional.empty();
    }
    held.set(i);
    return Optional.of(new RunAccount(base + i, base + i));
  }

  /** Gives an account back once its run has no process and no work directory left. */
  public synchronized void release(RunAccount account) {
    held.clear(index(account));
  }

  /** Takes an account out of use for good (its run left files it could not remove). */
  public synchronized void retire(RunAccount account) {
    int i = index(account);
    held.clear(i);
    retired.set(i);
  }

  /** Accounts neither held nor retired. */
  public synchronized int free() {
    BitSet busy = (BitSet) held.clone();
    busy.or(retired);
    return size - busy.cardinality();
  }

  private int index(RunAccount account) {
    if (!contains(account.uid())) {
      throw new IllegalArgumentException(account + " is not one of uids " + base + "-" + last());
    }
    return (int) (account.uid() - base);
  }

  @Override
  public String toString() {
    return "uids " + base + "-" + last();
  }
}
