package io.ql3.worker.contract;

/**
 * Register request body. Invariants: {@code capabilityDigest} is the capability's digest, {@code
 * profile} equals {@code capability.profile} and {@code capacity.maxConcurrentRuns} equals {@code
 * capability.limits.maxConcurrentRuns}.
 */
public record RegisterRequest(
    Capability capability, String capabilityDigest, Capacity capacity, Profile profile) {
  static final String[] NAMES = {"capability", "capabilityDigest", "capacity", "profile", "schema"};

  public RegisterRequest {
    Check.present(capability, "/capability");
    Check.present(capabilityDigest, "/capabilityDigest");
    Check.present(capacity, "/capacity");
    Check.present(profile, "/profile");
    if (!capabilityDigest.equals(capability.digest())) {
      throw new InvalidWireValueException(
          ViolationReason.CAPABILITY_DIGEST_MISMATCH,
          "/capabilityDigest",
          "capabilityDigest is not the digest of the canonical capability");
    }
    if (profile != capability.profile()) {
      throw Check.outOfRange(
          "/profile",
          "profile "
              + profile.wire()
              + " differs from capability.profile "
              + capability.profile().wire());
    }
    if (capacity.maxConcurrentRuns() != capability.limits().maxConcurrentRuns()) {
      throw Check.outOfRange(
          "/capacity/maxConcurrentRuns",
          "capacity.maxConcurrentRuns "
              + capacity.maxConcurrentRuns()
              + " differs from capability.limits.maxConcurrentRuns "
              + capability.limits().maxConcurrentRuns());
    }
  }

  /** The request for {@code capability} publishing {@code availableSlots}. */
  public static RegisterRequest of(Capability capability, int availableSlots) {
    return new RegisterRequest(
        capability,
        capability.digest(),
        new Capacity(availableSlots, capability.limits().maxConcurrentRuns()),
        capability.profile());
  }

  public Operation operation() {
    return Operation.REGISTER;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(1024);
    w.ascii("{\"capability\":");
    capability.write(w);
    w.ascii(",\"capabilityDigest\":").string(capabilityDigest).ascii(",\"capacity\":");
    capacity.write(w);
    w.ascii(",\"profile\":")
        .string(profile.wire())
        .ascii(",\"schema\":")
        .string(Operation.REGISTER.schema())
        .raw('}');
    return w.toByteArray();
  }

  /**
   * Server-side strict parse: cap, JSON rules, closed objects, ranges, identifiers, capability size
   * and digest, profile and maxConcurrentRuns equality, and canonical form.
   */
  public static RegisterRequest parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.REGISTER.requestCap(), NAMES);
      o.schema(Operation.REGISTER.schema());
      Capability cap = Capability.read(o.object("capability", Capability.NAMES));
      String digest = o.string("capabilityDigest");
      Capacity capacity = Capacity.read(o.object("capacity", Capacity.NAMES));
      Profile profile = o.enumValue("profile", Profile.class);
      RegisterRequest r = new RegisterRequest(cap, digest, capacity, profile);
      Obj.requireCanonical(body, r.toCanonicalBytes());
      return r;
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
