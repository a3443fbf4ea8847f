package io.ql3.worker.runtime.isolation;

import java.util.BitSet;
import java.util.Optional;

/**
 * The run accounts of one agent: uids {@code uid … uid+size-1} and gids {@code gid … gid+size-1},
 * one pair per slot, where {@code uid}/{@code gid} is the run account ({@code execution.run-user},
 * {@code execution.run-group}: {@code ql3-run} by default, see {@link RunAs}) and size = {@code
 * execution.slots}. A run holds its account from prepare until its processes are gone and its work
 * directory is removed, so two runs that exist at the same time never share a uid: neither can
 * signal, trace or read the other's processes ({@code /proc/PID/environ}, {@code cwd}, {@code fd})
 * or enter the other's work directory. Only the first pair is named; the others need no passwd or
 * group entry ({@code setpriv} takes numbers), and at start {@link Isolation} refuses a range that
 * another named account or a running process already uses.
 *
 * <p>An account whose work directory could not be removed is never handed out again by this process
 * ({@link #retire}): the next run with that uid could read what is left.
 */
public final class RunAccounts {

  /**
   * Highest uid a range may reach (uid_t is 32 bits; some tools treat ids above 2^31 as negative).
   */
  public static final long MAX_UID = 2_147_483_646L;

  private final long base;
  private final long gidBase;
  private final int size;
  private final BitSet held = new BitSet();
  private final BitSet retired = new BitSet();

  /**
   * {@code size} accounts from {@code first}: uids {@code first.uid()…}, gids {@code first.gid()…}.
   */
  public RunAccounts(RunAccount first, int size) {
    for (long id : new long[] {first.uid(), first.gid()}) {
      if (size < 1 || id < 1 || id + size - 1 > MAX_UID) {
        throw new IllegalArgumentException(
            "run id range " + id + "+" + size + " is outside 1.." + MAX_UID);
      }
    }
    this.base = first.uid();
    this.gidBase = first.gid();
    this.size = size;
  }

  /** The first uid. */
  public long first() {
    return base;
  }

  /** The last uid. */
  public long last() {
    return base + size - 1;
  }

  public long firstGid() {
    return gidBase;
  }

  public long lastGid() {
    return gidBase + size - 1;
  }

  public int size() {
    return size;
  }

  public boolean containsUid(long uid) {
    return uid >= base && uid <= last();
  }

  public boolean containsGid(long gid) {
    return gid >= gidBase && gid <= lastGid();
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
    return Optional.of(new RunAccount(base + i, gidBase + i));
  }

  /** The account of the slot whose uid this is. */
  public RunAccount withUid(long uid) {
    int i = index(new RunAccount(uid, 0));
    return new RunAccount(base + i, gidBase + i);
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
    if (!containsUid(account.uid())) {
      throw new IllegalArgumentException(account + " is not one of uids " + base + "-" + last());
    }
    return (int) (account.uid() - base);
  }

  @Override
  public String toString() {
    return "uids "
        + base
        + "-"
        + last()
        + (gidBase == base ? "" : ", gids " + gidBase + "-" + lastGid());
  }
}
