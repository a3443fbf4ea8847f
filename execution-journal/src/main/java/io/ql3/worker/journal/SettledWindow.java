package io.ql3.worker.journal;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The settled window: the facts of the last settled run attempts, oldest first, held here and
 * nowhere else (a settled fact never changes). Kept so that a {@link JournalFacts} snapshot costs
 * O(1) instead of a copy of the whole window (1,024 entries by default) after every append, and so
 * that {@link JournalFacts#recentCompletion} and {@link #contains} are hash lookups instead of a
 * scan of the window. {@link JournalState} decides what enters and when the oldest leaves.
 *
 * <p>Settled facts are appended to an array at increasing positions and never changed: a snapshot
 * ({@link View}) is the range {@code [from, to)} of the array it was taken from, so it stays valid
 * (and immutable) while later appends go on. When the array is full the retained range moves to a
 * new one; old snapshots keep the old array.
 *
 * <p>Index: key → its latest position, for every position at or above {@code floor}; entries of
 * positions below {@code floor} are removed. {@code floor} trails the window's start by {@value
 * #TRAIL} positions (or the window size, if smaller), so a snapshot up to that many evictions old
 * (acknowledgements riding the writer while the plane reads its snapshot) still looks up in O(1);
 * an older one (or an index answer it cannot trust) scans its own range.
 *
 * <p>Memory: the current array holds the window, the trail and at most {@value #SLACK} more
 * positions (free ones, or evicted facts below the floor) before the retained range moves to a new
 * array (results can carry a 16 KiB output tail each, so the array must not keep whole extra
 * windows alive, nor the facts a window shrunk by its tail budget let go; old snapshots keep what
 * they reference, as before).
 *
 * <p>Mutated by the journal's writer (or recovery) under the journal's state lock, the same lock
 * under which snapshots are taken; a snapshot may be read on any thread without it.
 */
final class SettledWindow {
  static final int TRAIL = 64;
  static final int SLACK = 64;
  private final int windowSize;
  private final int trail;
  private final int slack;
  private final ConcurrentHashMap<RunKey, Long> index = new ConcurrentHashMap<>();
  private RunFact[] array;

  /** Position of {@code array[0]}. */
  private long base;

  /** The window: positions {@code [from, to)}. */
  private long from;

  private long to;

  /** Positions at or above it are in {@link #index}. Written before an entry is removed. */
  private volatile long floor;

  private View snapshot;

  SettledWindow(int windowSize) {
    this.windowSize = windowSize;
    this.trail = Math.min(TRAIL, windowSize);
    this.slack = Math.max(16, Math.min(SLACK, windowSize));
    this.array = new RunFact[capacity()];
  }

  private int capacity() {
    return windowSize + trail + slack + 1;
  }

  int size() {
    return (int) (to - from);
  }

  /** Whether the window holds a fact of this attempt. */
  boolean contains(RunKey key) {
    Long p = index.get(key); // a fact in the window is indexed at its latest position
    return p != null && p >= from;
  }

  /**
   * Appends a settled fact at the window's end, or, when the window already holds this attempt,
   * puts it in that fact's place. Returns the fact it replaced, or null.
   */
  RunFact addOrReplace(RunFact fact) {
    if (!contains(fact.key())) {
      add(fact);
      return null;
    }
    // Not reachable through JournalState.apply (an attempt is never settled twice); kept exact
    // anyway: the window is rebuilt with the new fact in the old one's place.
    List<RunFact> facts = new ArrayList<>(snapshot());
    RunFact replaced = null;
    for (int i = 0; i < facts.size(); i++) {
      if (facts.get(i).key().equals(fact.key())) {
        replaced = facts.set(i, fact);
      }
    }
    reset(facts);
    return replaced;
  }

  /** Appends a settled fact at the window's end. */
  private void add(RunFact fact) {
    // Full, or more than `slack` positions below the floor: those facts are no longer in the window
    // or its trail, and only old snapshots (which keep the old array) may still read them.
    if (to - base == array.length || floor - base > slack) {
      RunFact[] next = new RunFact[Math.max(capacity(), (int) (to - floor) + slack)];
      System.arraycopy(array, (int) (floor - base), next, 0, (int) (to - floor));
      array = next;
      base = floor;
    }
    array[(int) (to - base)] = fact;
    index.put(fact.key(), to);
    to++;
    snapshot = null;
  }

  /** Drops the oldest fact of the window and returns it. */
  RunFact evictOldest() {
    if (from == to) {
      throw new IllegalStateException("empty settled window");
    }
    RunFact oldest = array[(int) (from - base)];
    from++;
    while (from - floor > trail) {
      long p = floor;
      RunFact old = array[(int) (p - base)];
      floor = p + 1;
      index.remove(
          old.key(), p); // the fact stays in the array: an older snapshot may still read it
    }
    snapshot = null;
    return oldest;
  }

  /** Empties it and appends these facts, oldest first. */
  private void reset(Iterable<RunFact> facts) {
    floor = to; // before the index loses its entries, as evictOldest
    index.clear();
    array = new RunFact[capacity()];
    base = to;
    from = to;
    snapshot = null;
    for (RunFact f : facts) {
      add(f);
    }
  }

  /** The window now, oldest first: an immutable list that later changes do not affect. */
  View snapshot() {
    View v = snapshot;
    if (v == null) {
      v = new View(this, array, base, from, to);
      snapshot = v;
    }
    return v;
  }

  /** An immutable range of settled facts, oldest first, with an O(1) lookup by run attempt. */
  static final class View extends AbstractList<RunFact> implements RandomAccess {
    private final SettledWindow owner;
    private final RunFact[] array;
    private final long base;
    private final long from;
    private final long to;

    View(SettledWindow owner, RunFact[] array, long base, long from, long to) {
      this.owner = owner;
      this.array = array;
      this.base = base;
      this.from = from;
      this.to = to;
    }

    @Override
    public RunFact get(int i) {
      if (i < 0 || i >= size()) {
        throw new IndexOutOfBoundsException(i);
      }
      return array[(int) (from - base) + i];
    }

    @Override
    public int size() {
      return (int) (to - from);
    }

    /** The fact of this attempt in this range, or null. */
    RunFact find(RunKey key) {
      Long p = owner.index.get(key);
      if (p != null) {
        if (p >= from && p < to) {
          RunFact f = array[(int) (p - base)];
          if (f.key().equals(key)) {
            return f;
          }
        } else if (p < from) {
          return null; // its latest position is older than this range
        }
        // p >= to: settled again after this snapshot; an older position may be in range.
      } else if (owner.floor <= from) {
        return null; // every position of this range is indexed: not here
      }
      return scan(key);
    }

    private RunFact scan(RunKey key) {
      for (int i = (int) (from - base), end = (int) (to - base); i < end; i++) {
        if (array[i].key().equals(key)) {
          return array[i];
        }
      }
      return null;
    }

    @Override
    public Object[] toArray() {
      return Arrays.copyOfRange(array, (int) (from - base), (int) (to - base), Object[].class);
    }
  }
}
