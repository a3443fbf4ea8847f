package io.ql3.worker.contract;

import java.util.regex.Pattern;

/** {@code capability.agent}: name {@code ql3-worker}, a semver version and a 40-hex revision. */
public record AgentInfo(String name, String revision, String version) {
  public static final String NAME = "ql3-worker";
  static final String[] NAMES = {"name", "revision", "version"};
  private static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)"
              + "(-[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?");

  public AgentInfo {
    if (!NAME.equals(Check.present(name, "/name"))) {
      throw Check.outOfRange("/name", "agent name must be " + NAME);
    }
    if (!Patterns.hex40(Check.present(revision, "/revision"))) {
      throw Check.outOfRange("/revision", "revision is not 40 lowercase hex characters");
    }
    if (Check.present(version, "/version").length() > 64 || !SEMVER.matcher(version).matches()) {
      throw Check.outOfRange(
          "/version", "version is not a semantic version: " + Check.quote(version));
    }
  }

  static AgentInfo read(Obj o) throws ContractViolation {
    String n = o.string("name");
    String r = o.string("revision");
    String v = o.string("version");
    try {
      return new AgentInfo(n, r, v);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  void write(CanonicalWriter w) {
    w.ascii("{\"name\":")
        .string(name)
        .ascii(",\"revision\":")
        .string(revision)
        .ascii(",\"version\":")
        .string(version)
        .raw('}');
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(96);
    write(w);
    return w.toByteArray();
  }

  public static AgentInfo parse(byte[] json) throws ContractViolation {
    try {
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
