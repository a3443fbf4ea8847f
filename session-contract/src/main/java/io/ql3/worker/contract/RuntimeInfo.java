package io.ql3.worker.contract;

/**
 * {@code capability.runtime}: e.g. {@code {"name":"java","version":"21.0.5"}} (1..64 printable
 * ASCII each).
 */
public record RuntimeInfo(String name, String version) {
  static final String[] NAMES = {"name", "version"};

  public RuntimeInfo {
    Check.printableAscii(Check.present(name, "/name"), 1, 64, "/name");
    Check.printableAscii(Check.present(version, "/version"), 1, 64, "/version");
  }

  /** The runtime this JVM is. */
  public static RuntimeInfo currentJava() {
    return new RuntimeInfo("java", System.getProperty("java.version"));
  }

  static RuntimeInfo read(Obj o) throws ContractViolation {
    String n = o.string("name");
    String v = o.string("version");
    try {
      return new RuntimeInfo(n, v);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"name\":").string(name).ascii(",\"version\":").string(version).raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(64);
    write(w);
    return w.toByteArray();
  }

  public static RuntimeInfo parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
