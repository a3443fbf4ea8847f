package io.ql3.worker.controlplane.ingress;

import io.ql3.worker.contract.CanonicalJson;
import io.ql3.worker.contract.CompleteRequest;
import io.ql3.worker.contract.CompleteResponse;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.Digests;
import io.ql3.worker.contract.Disposition;
import io.ql3.worker.contract.ErrorBody;
import io.ql3.worker.contract.ErrorCode;
import io.ql3.worker.contract.HeartbeatRequest;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.JsonReader;
import io.ql3.worker.contract.JsonValue;
import io.ql3.worker.contract.Offer;
import io.ql3.worker.contract.Operation;
import io.ql3.worker.contract.OperationPath;
import io.ql3.worker.contract.PullId;
import io.ql3.worker.contract.PullRequest;
import io.ql3.worker.contract.PullResponse;
import io.ql3.worker.contract.RegisterRequest;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.contract.Replaced;
import io.ql3.worker.contract.ReplacedStatus;
import io.ql3.worker.contract.RunId;
import io.ql3.worker.contract.SessionId;
import io.ql3.worker.contract.TransitionRequest;
import io.ql3.worker.contract.TransitionResponse;
import io.ql3.worker.contract.ViolationReason;
import io.ql3.worker.controlplane.state.Commands;
import io.ql3.worker.controlplane.state.OfferData;
import io.ql3.worker.controlplane.state.SessionStatus;
import io.ql3.worker.controlplane.state.WireCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one adapter between the session-contract module and this server: strict request parsing
 * (paths and bodies, canonical form included) into {@link Commands}, and canonical responses from
 * the contract's wire records. Stateless and thread-safe.
 */
public final class ContractWire implements WireCodec {
  private static final int MAX_MESSAGE_CHARS = 1000;

  /** A parsed request path. {@code runId} null except for complete. */
  public record IngressPath(Operation op, String workerId, String sessionId, String runId) {
    public String operation() {
      return op.wireName();
    }

    public int requestCap() {
      return op.requestCap();
    }

    /**
     * register, heartbeat and transition: never two at once for one worker (contract section 7).
     */
    public boolean sessionOperation() {
      return op == Operation.REGISTER || op == Operation.HEARTBEAT || op == Operation.TRANSITION;
    }
  }

  /** A refused request: the error to answer with and the contract reason. */
  public static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient ErrorCode code;
    private final String reason;

    Refusal(ErrorCode code, String reason, String message) {
      super(message, null, false, false);
      this.code = code;
      this.reason = reason;
    }

    public ErrorCode code() {
      return code;
    }

    /** The contract's reason code (vectors README), e.g. {@code not_canonical}. */
    public String reason() {
      return reason;
    }

    public boolean nonCanonical() {
      return ViolationReason.NOT_CANONICAL.code().equals(reason);
    }
  }

  public IngressPath parsePath(String rawPath) throws Refusal {
    try {
      OperationPath p = OperationPath.parse(rawPath);
      return new IngressPath(
          p.operation(),
          p.workerId().value(),
          p.sessionId().value(),
          p.runId().map(RunId::value).orElse(null));
    } catch (ContractViolation v) {
      ErrorCode code =
          v.reason() == ViolationReason.UNKNOWN_OPERATION
              ? ErrorCode.UNKNOWN_OPERATION
              : ErrorCode.CONTRACT_VIOLATION;
      throw new Refusal(code, v.reason().code(), v.getMessage());
    }
  }

  public Commands.Register parseRegister(byte[] body) throws Refusal {
    RegisterRequest r = parse(() -> RegisterRequest.parse(body));
    var cap = r.capability();
    return new Commands.Register(
        r.profile().wire(),
        r.capacity().availableSlots(),
        r.capacity().maxConcurrentRuns(),
        cap.executorNames(),
        cap.labels(),
        cap.limits().maxSpecBytes(),
        cap.limits().pullPage());
  }

  public Commands.Heartbeat parseHeartbeat(byte[] body) throws Refusal {
    HeartbeatRequest r = parse(() -> HeartbeatRequest.parse(body));
    return new Commands.Heartbeat(
        r.generation(),
        r.version(),
        status(r.status()),
        r.capacity().availableSlots(),
        r.capacity().maxConcurrentRuns());
  }

  public Commands.Transition parseTransition(byte[] body) throws Refusal {
    TransitionRequest r = parse(() -> TransitionRequest.parse(body));
    return new Commands.Transition(
        r.generation(),
        r.version(),
        status(r.from()),
        status(r.to()),
        r.capacity().maxConcurrentRuns());
  }

  public Commands.Pull parsePull(byte[] body) throws Refusal {
    PullRequest r = parse(() -> PullRequest.parse(body));
    return new Commands.Pull(r.generation(), r.maxRuns(), r.pullId().value(), r.waitMs());
  }

  public Commands.Complete parseComplete(byte[] body) throws Refusal {
    CompleteRequest r = parse(() -> CompleteRequest.parse(body));
    return new Commands.Complete(r.attempt(), r.generation(), r.outcome().wire());
  }

  private interface Parser<T> {
    T parse() throws ContractViolation;
  }

  private static <T> T parse(Parser<T> parser) throws Refusal {
    try {
      return parser.parse();
    } catch (ContractViolation v) {
      ErrorCode code =
          v.reason() == ViolationReason.OVER_CAP
              ? ErrorCode.PAYLOAD_TOO_LARGE
              : ErrorCode.CONTRACT_VIOLATION;
      throw new Refusal(code, v.reason().code(), v.getMessage());
    }
  }

  private static SessionStatus status(io.ql3.worker.contract.SessionStatus s) {
    return switch (s) {
      case ACTIVE -> SessionStatus.ACTIVE;
      case DRAINING -> SessionStatus.DRAINING;
      case OFFLINE -> SessionStatus.OFFLINE;
    };
  }

  private static io.ql3.worker.contract.SessionStatus wireStatus(SessionStatus s) {
    return switch (s) {
      case ACTIVE -> io.ql3.worker.contract.SessionStatus.ACTIVE;
      case DRAINING -> io.ql3.worker.contract.SessionStatus.DRAINING;
      case OFFLINE -> io.ql3.worker.contract.SessionStatus.OFFLINE;
      case EXPIRED -> throw new IllegalArgumentException("expired is not a wire session status");
    };
  }

  // ------------------------------------------------------------------ responses

  @Override
  public byte[] registerResponse(
      long generation,
      long heartbeatIntervalMs,
      long leaseTtlMs,
      Long replacedGeneration,
      String replacedSessionId,
      String replacedStatus) {
    Replaced replaced =
        replacedSessionId == null
            ? null
            : new Replaced(
                replacedGeneration,
                new SessionId(replacedSessionId),
                ReplacedStatus.fromWire(replacedStatus));
    return new RegisterResponse(
            generation,
            heartbeatIntervalMs,
            leaseTtlMs,
            replaced,
            io.ql3.worker.contract.SessionStatus.ACTIVE,
            1)
        .toCanonicalBytes();
  }

  @Override
  public byte[] heartbeatResponse(
      List<String> cancelRuns,
      long generation,
      long heartbeatIntervalMs,
      long leaseTtlMs,
      SessionStatus status,
      long version,
      boolean workAvailable) {
    List<RunId> ids = new ArrayList<>(cancelRuns.size());
    for (String id : cancelRuns) {
      ids.add(new RunId(id));
    }
    return new HeartbeatResponse(
            ids,
            generation,
            heartbeatIntervalMs,
            leaseTtlMs,
            wireStatus(status),
            version,
            workAvailable)
        .toCanonicalBytes();
  }

  @Override
  public byte[] transitionResponse(
      long generation, long leaseTtlMs, SessionStatus status, long version) {
    return new TransitionResponse(generation, leaseTtlMs, wireStatus(status), version)
        .toCanonicalBytes();
  }

  @Override
  public byte[] pullResponse(
      long generation, long nextPullAfterMs, List<OfferData> offers, String pullId) {
    List<Offer> wire = new ArrayList<>(offers.size());
    for (OfferData o : offers) {
      wire.add(offer(o));
    }
    return new PullResponse(generation, nextPullAfterMs, wire, new PullId(pullId))
        .toCanonicalBytes();
  }

  @Override
  public int offerSize(OfferData offer) {
    PullId id = new PullId("00000000-0000-7000-8000-000000000000");
    int empty = new PullResponse(0, 0, List.of(), id).toCanonicalBytes().length;
    return new PullResponse(0, 0, List.of(offer(offer)), id).toCanonicalBytes().length - empty;
  }

  private static Offer offer(OfferData o) {
    JsonValue.JsonObject spec;
    try {
      spec = (JsonValue.JsonObject) JsonReader.parse(o.spec());
    } catch (ContractViolation | ClassCastException e) {
      throw new IllegalStateException("a stored spec is always a canonical JSON object", e);
    }
    return new Offer(
        o.attempt(),
        o.executor(),
        o.idempotencyKey(),
        new RunId(o.runId()),
        spec,
        o.specDigest(),
        o.timeoutMs(),
        Optional.empty(),
        Optional.empty());
  }

  @Override
  public void checkOffer(OfferData offer) {
    // The executor name pattern is a one-offer rule on the client side; a server never sends a bad
    // one.
    new io.ql3.worker.contract.ExecutorInfo(offer.executor(), "1");
    offer(offer); // the contract's Offer and RunId constructors enforce the other rules
  }

  @Override
  public boolean validWorkerId(String workerId) {
    return io.ql3.worker.contract.WorkerId.isValid(workerId);
  }

  @Override
  public byte[] completeResponse(long attempt, boolean duplicate, String runId) {
    return new CompleteResponse(
            attempt, duplicate ? Disposition.DUPLICATE : Disposition.ACCEPTED, new RunId(runId))
        .toCanonicalBytes();
  }

  @Override
  public byte[] errorBody(ErrorCode code, String message) {
    return new ErrorBody(code, printable(message)).toCanonicalBytes();
  }

  /**
   * Printable ASCII only and at most 1000 characters, so an error body always fits its 4096-byte
   * cap.
   */
  private static String printable(String message) {
    StringBuilder b = new StringBuilder(Math.min(message.length(), MAX_MESSAGE_CHARS));
    for (int i = 0; i < message.length() && b.length() < MAX_MESSAGE_CHARS; i++) {
      char c = message.charAt(i);
      b.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return b.toString();
  }

  @Override
  public byte[] canonicalize(byte[] json) {
    JsonValue value;
    try {
      value = JsonReader.parse(json);
    } catch (ContractViolation v) {
      throw new IllegalArgumentException("spec: " + v.getMessage());
    }
    if (!(value instanceof JsonValue.JsonObject)) {
      throw new IllegalArgumentException("spec must be a JSON object");
    }
    return CanonicalJson.toBytes(value);
  }

  @Override
  public String digest(byte[] canonical) {
    return Digests.sha256(canonical);
  }
}
