package io.ql3.worker.contract;

/** {@code capability.limits}: maxConcurrentRuns 1..1024, maxSpecBytes 1..65536, pullPage 1..64. */
public record Limits(int maxConcurrentRuns, int maxSpecBytes, int pullPage) {
  public static final int MAX_SPEC_BYTES = 65536;
  public static final int MAX_PULL_PAGE = 64;
  static final String[] NAMES = {"maxConcurrentRuns", "maxSpecBytes", "pullPage"};

  public Limits {
    Check.range(maxConcurrentRuns, 1, Capacity.MAX_CONCURRENT_RUNS, "/maxConcurrentRuns");
    Check.range(maxSpecBytes, 1, MAX_SPEC_BYTES, "/maxSpecBytes");
    Check.range(pullPage, 1, MAX_PULL_PAGE, "/pullPage");
  }

  static Limits read(Obj o) throws ContractViolation {
    long m = o.integer("maxConcurrentRuns");
    long s = o.integer("maxSpecBytes");
    long p = o.integer("pullPage");
    try {
      return new Limits(Obj.clamp(m), Obj.clamp(s), Obj.clamp(p));
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"maxConcurrentRuns\":")
        .number(maxConcurrentRuns)
        .ascii(",\"maxSpecBytes\":")
        .number(maxSpecBytes)
        .ascii(",\"pullPage\":")
        .number(pullPage)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(80);
    write(w);
    return w.toByteArray();
  }

  public static Limits parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
