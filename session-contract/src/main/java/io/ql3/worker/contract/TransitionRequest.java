package io.ql3.worker.contract;

/**
 * Transition request. Allowed: active→draining, draining→offline, active→offline (the latter only
 * when the client holds no unsettled run, which a server cannot see). {@code availableSlots} is 0.
 */
public record TransitionRequest(
    Capacity capacity, SessionStatus from, long generation, SessionStatus to, long version) {
  static final String[] NAMES = {"capacity", "from", "generation", "schema", "to", "version"};

  public TransitionRequest {
    Check.present(capacity, "/capacity");
    Check.present(from, "/from");
    Check.integer(generation, "/generation");
    Check.present(to, "/to");
    Check.range(version, 1, JsonValue.MAX_INTEGER, "/version");
    if (!allowed(from, to)) {
      throw new InvalidWireValueException(
          ViolationReason.BAD_TRANSITION,
          "/to",
          from.wire() + " -> " + to.wire() + " is not an allowed transition");
    }
    if (capacity.availableSlots() != 0) {
      throw new InvalidWireValueException(
          ViolationReason.DRAINING_WITH_SLOTS,
          "/capacity/availableSlots",
          "transition with availableSlots " + capacity.availableSlots());
    }
  }

  /** The session state machine's allowed transitions. */
  public static boolean allowed(SessionStatus from, SessionStatus to) {
    return from.canTransitionTo(to);
  }

  public Operation operation() {
    return Operation.TRANSITION;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(180);
    w.ascii("{\"capacity\":");
    capacity.write(w);
    w.ascii(",\"from\":")
        .string(from.wire())
        .ascii(",\"generation\":")
        .number(generation)
        .ascii(",\"schema\":\"qinglong/worker-session-transition@v1\",\"to\":")
        .string(to.wire())
        .ascii(",\"version\":")
        .number(version)
        .raw('}');
    return w.toByteArray();
  }

  /** Server-side strict parse, canonical form included. */
  public static TransitionRequest parse(byte[] body) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.TRANSITION.requestCap(), NAMES);
      o.schema(Operation.TRANSITION.schema());
      Capacity c = Capacity.read(o.object("capacity", Capacity.NAMES));
      SessionStatus from = o.enumValue("from", SessionStatus.class);
      long g = o.integer("generation");
      SessionStatus to = o.enumValue("to", SessionStatus.class);
      long v = o.integer("version");
      TransitionRequest r = new TransitionRequest(c, from, g, to, v);
      Obj.requireCanonical(body, r.toCanonicalBytes());
      return r;
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
