package io.ql3.worker.contract;

/**
 * An advertised executor: name {@code ^[a-z][a-z0-9-]{0,31}$} and a version (1..64 printable
 * ASCII).
 */
public record ExecutorInfo(String name, String version) {
  static final String[] NAMES = {"name", "version"};

  public ExecutorInfo {
    Check.identifier(
        Patterns.executorName(Check.present(name, "/name")), name, "executor name", "/name");
    Check.printableAscii(Check.present(version, "/version"), 1, 64, "/version");
  }

  static ExecutorInfo read(Obj o) throws ContractViolation {
    String n = o.string("name");
    String v = o.string("version");
    try {
      return new ExecutorInfo(n, v);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"name\":").string(name).ascii(",\"version\":").string(version).raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(48);
    write(w);
    return w.toByteArray();
  }

  public static ExecutorInfo parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
