package io.ql3.worker.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The canonical capability snapshot of a register request (section 5). At most {@value
 * #MAX_CANONICAL_BYTES} bytes in canonical form ({@link ViolationReason#CAPABILITY_TOO_LARGE}).
 * Executors sorted by name and unique; at most {@value #MAX_LABELS} labels (keys {@value
 * #LABEL_KEY_PATTERN}, values at most {@value #MAX_LABEL_VALUE_CHARS} characters). Build one with
 * {@link CapabilityBuilder}.
 */
public record Capability(
    AgentInfo agent,
    String architecture,
    List<ExecutorInfo> executors,
    Map<String, String> labels,
    Limits limits,
    String os,
    Profile profile,
    RuntimeInfo runtime) {
  public static final int MAX_CANONICAL_BYTES = 16384;
  public static final int MAX_LABELS = 64;
  public static final int MAX_LABEL_VALUE_CHARS = 256;

  /** The label-key pattern (checked by hand, not by a regex engine; a test pins the two equal). */
  public static final String LABEL_KEY_PATTERN = "^[a-z0-9][a-z0-9._/-]{0,62}$";

  static final String[] NAMES = {
    "agent", "architecture", "executors", "labels", "limits", "os", "profile", "runtime"
  };

  public Capability {
    Check.present(agent, "/agent");
    Check.token(Check.present(architecture, "/architecture"), 32, "/architecture");
    executors = List.copyOf(Check.present(executors, "/executors"));
    for (int i = 1; i < executors.size(); i++) {
      if (executors.get(i - 1).name().compareTo(executors.get(i).name()) >= 0) {
        throw Check.outOfRange("/executors/" + i, "executors not sorted by name or not unique");
      }
    }
    Check.present(labels, "/labels");
    if (labels.size() > MAX_LABELS) {
      throw Check.outOfRange("/labels", labels.size() + " labels, at most " + MAX_LABELS);
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : labels.entrySet()) {
      String k = Check.present(e.getKey(), "/labels");
      String p = "/labels/" + Obj.escape(k);
      Check.identifier(Patterns.labelKey(k), k, "label key", p);
      Check.chars(Check.present(e.getValue(), p), 0, MAX_LABEL_VALUE_CHARS, p);
      sorted.put(k, e.getValue());
    }
    labels = Collections.unmodifiableMap(sorted);
    Check.present(limits, "/limits");
    Check.token(Check.present(os, "/os"), 32, "/os");
    Check.present(profile, "/profile");
    Check.present(runtime, "/runtime");
    // Fields are assigned only after this compact constructor: size the parameters.
    CanonicalWriter sizer = new CanonicalWriter(1024);
    write(sizer, agent, architecture, executors, labels, limits, os, profile, runtime);
    int size = sizer.length();
    if (size > MAX_CANONICAL_BYTES) {
      throw new InvalidWireValueException(
          ViolationReason.CAPABILITY_TOO_LARGE,
          "",
          "capability is " + size + " canonical bytes, at most " + MAX_CANONICAL_BYTES);
    }
  }

  /** Names of the advertised executors, sorted. */
  public List<String> executorNames() {
    List<String> names = new ArrayList<>(executors.size());
    for (ExecutorInfo e : executors) {
      names.add(e.name());
    }
    return Collections.unmodifiableList(names);
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(1024);
    write(w);
    return w.toByteArray();
  }

  /**
   * {@code sha256:} digest of the canonical bytes (the register body's {@code capabilityDigest}).
   */
  public String digest() {
    return Digests.sha256(toCanonicalBytes());
  }

  void write(CanonicalWriter w) {
    write(w, agent, architecture, executors, labels, limits, os, profile, runtime);
  }

  private static void write(
      CanonicalWriter w,
      AgentInfo agent,
      String architecture,
      List<ExecutorInfo> executors,
      Map<String, String> labels,
      Limits limits,
      String os,
      Profile profile,
      RuntimeInfo runtime) {
    w.ascii("{\"agent\":");
    agent.write(w);
    w.ascii(",\"architecture\":").string(architecture).ascii(",\"executors\":[");
    for (int i = 0; i < executors.size(); i++) {
      if (i > 0) {
        w.raw(',');
      }
      executors.get(i).write(w);
    }
    w.ascii("],\"labels\":{");
    int i = 0;
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (i++ > 0) {
        w.raw(',');
      }
      w.string(e.getKey()).raw(':').string(e.getValue());
    }
    w.ascii("},\"limits\":");
    limits.write(w);
    w.ascii(",\"os\":")
        .string(os)
        .ascii(",\"profile\":")
        .string(profile.wire())
        .ascii(",\"runtime\":");
    runtime.write(w);
    w.raw('}');
  }

  static Capability read(Obj o) throws ContractViolation {
    AgentInfo agent = AgentInfo.read(o.object("agent", AgentInfo.NAMES));
    String arch = o.string("architecture");
    List<JsonValue> ex = o.array("executors");
    List<ExecutorInfo> executors = new ArrayList<>(ex.size());
    for (int i = 0; i < ex.size(); i++) {
      executors.add(
          ExecutorInfo.read(Obj.of(ex.get(i), o.at("executors") + "/" + i, ExecutorInfo.NAMES)));
    }
    Obj lo = o.openObject("labels");
    Map<String, String> labels = new TreeMap<>();
    for (Map.Entry<String, JsonValue> e : lo.members().entrySet()) {
      labels.put(e.getKey(), Obj.stringElement(e.getValue(), lo.at(e.getKey())));
    }
    Limits limits = Limits.read(o.object("limits", Limits.NAMES));
    String os = o.string("os");
    Profile profile = o.enumValue("profile", Profile.class);
    RuntimeInfo runtime = RuntimeInfo.read(o.object("runtime", RuntimeInfo.NAMES));
    try {
      return new Capability(agent, arch, executors, labels, limits, os, profile, runtime);
    } catch (InvalidWireValueException e) {
      throw e.violation().under(o.ptr);
    }
  }

  /** Parses a capability object (no canonical-form requirement). */
  public static Capability parse(byte[] json) throws ContractViolation {
    try {
      Obj.checkCap(json, Operation.REGISTER.requestCap());
      return read(Obj.of(JsonReader.parse(json), "", NAMES));
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }

  /** True when {@code key} matches {@link #LABEL_KEY_PATTERN}. */
  public static boolean isValidLabelKey(String key) {
    return key != null && Patterns.labelKey(key);
  }
}
