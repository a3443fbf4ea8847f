package io.ql3.worker.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Builds the canonical capability snapshot. Executors are sorted and must be unique; the result
 * must fit {@value Capability#MAX_CANONICAL_BYTES} canonical bytes. {@link #build()} refuses
 * anything else with a {@link ContractViolation} (e.g. CAPABILITY_TOO_LARGE).
 */
public final class CapabilityBuilder {
  private String version;
  private String revision;
  private String architecture;
  private String os = "linux";
  private RuntimeInfo runtime = RuntimeInfo.currentJava();
  private final Map<String, ExecutorInfo> executors = new TreeMap<>();
  private final List<String> duplicateExecutors = new ArrayList<>();
  private final Map<String, String> labels = new TreeMap<>();
  private Limits limits;
  private Profile profile;

  /** Agent version (semver) and 40-hex git revision. */
  public CapabilityBuilder agent(String version, String revision) {
    this.version = version;
    this.revision = revision;
    return this;
  }

  /** e.g. {@code amd64}, {@code arm64}. */
  public CapabilityBuilder architecture(String architecture) {
    this.architecture = architecture;
    return this;
  }

  /**
   * Maps {@code os.arch} names to the contract's ({@code x86_64}→{@code amd64}, {@code
   * aarch64}→{@code arm64}).
   */
  public static String architectureOf(String javaOsArch) {
    switch (javaOsArch) {
      case "amd64":
      case "x86_64":
        return "amd64";
      case "aarch64":
      case "arm64":
        return "arm64";
      default:
        return javaOsArch.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }
  }

  public CapabilityBuilder os(String os) {
    this.os = os;
    return this;
  }

  public CapabilityBuilder runtime(String name, String version) {
    this.runtime = new RuntimeInfo(name, version);
    return this;
  }

  public CapabilityBuilder executor(String name, String version) {
    if (executors.put(name, new ExecutorInfo(name, version)) != null) {
      duplicateExecutors.add(name);
    }
    return this;
  }

  public CapabilityBuilder label(String key, String value) {
    labels.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return this;
  }

  public CapabilityBuilder labels(Map<String, String> all) {
    all.forEach(this::label);
    return this;
  }

  public CapabilityBuilder limits(int maxConcurrentRuns, int maxSpecBytes, int pullPage) {
    this.limits = new Limits(maxConcurrentRuns, maxSpecBytes, pullPage);
    return this;
  }

  public CapabilityBuilder profile(Profile profile) {
    this.profile = profile;
    return this;
  }

  /**
   * The validated snapshot; {@link Capability#toCanonicalBytes()} and {@link Capability#digest()}
   * give bytes and digest.
   */
  public Capability build() throws ContractViolation {
    if (!duplicateExecutors.isEmpty()) {
      throw new ContractViolation(
          ViolationReason.OUT_OF_RANGE,
          "/executors",
          "executor advertised twice: " + duplicateExecutors);
    }
    try {
      return new Capability(
          new AgentInfo(AgentInfo.NAME, revision, version),
          architecture,
          new ArrayList<>(executors.values()),
          labels,
          Check.present(limits, "/limits"),
          os,
          Check.present(profile, "/profile"),
          runtime);
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
