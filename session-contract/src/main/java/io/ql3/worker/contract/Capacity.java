package io.ql3.worker.contract;

/**
 * Published capacity: {@code maxConcurrentRuns} 1..1024, {@code availableSlots}
 * 0..maxConcurrentRuns (over it: {@link ViolationReason#SLOTS_OVER_MAX}).
 */
public record Capacity(int availableSlots, int maxConcurrentRuns) {
  public static final int MAX_CONCURRENT_RUNS = 1024;
  static final String[] NAMES = {"availableSlots", "maxConcurrentRuns"};

  public Capacity {
    Check.range(maxConcurrentRuns, 1, MAX_CONCURRENT_RUNS, "/maxConcurrentRuns");
    Check.range(availableSlots, 0, Integer.MAX_VALUE, "/availableSlots");
    if (availableSlots > maxConcurrentRuns) {
      throw new InvalidWireValueException(
          ViolationReason.SLOTS_OVER_MAX,
          "/availableSlots",
          "availableSlots " + availableSlots + " > maxConcurrentRuns " + maxConcurrentRuns);
    }
  }

  /** Zero available slots (draining, transitions). */
  public Capacity withoutSlots() {
    return new Capacity(0, maxConcurrentRuns);
  }

  static Capacity read(Obj o) throws ContractViolation {
    long a = o.integer("availableSlots");
    long m = o.integer("maxConcurrentRuns");
    try {
      return new Capacity(Obj.clamp(a), Obj.clamp(m));
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"availableSlots\":")
        .number(availableSlots)
        .ascii(",\"maxConcurrentRuns\":")
        .number(maxConcurrentRuns)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(48);
    write(w);
    return w.toByteArray();
  }

  public static Capacity parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
