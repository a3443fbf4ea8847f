package io.ql3.worker.contract;

import java.util.ArrayList;
import java.util.List;

/**
 * Pull response. {@code nextPullAfterMs} 0..300000; with offers present a server sends 0 and the
 * client ignores it (section 5 and the section 6 clarifications: not drift). Whole-answer rules
 * throw; count, unique runIds, generation and pullId are drift ({@link DriftCheck#pull}); one-offer
 * rules set {@link Offer#rejection()}.
 */
public record PullResponse(
    long generation, long nextPullAfterMs, List<Offer> offers, PullId pullId) {
  public static final long MAX_NEXT_PULL_AFTER_MS = 300_000L;
  static final String[] NAMES = {"generation", "nextPullAfterMs", "offers", "pullId", "schema"};

  public PullResponse {
    Check.integer(generation, "/generation");
    Check.range(nextPullAfterMs, 0, MAX_NEXT_PULL_AFTER_MS, "/nextPullAfterMs");
    offers = List.copyOf(Check.present(offers, "/offers"));
    Check.present(pullId, "/pullId");
  }

  /**
   * The same answer with every offer re-checked against {@code policy} (e.g. after {@link
   * #parse(byte[])}).
   */
  public PullResponse withPolicy(OfferPolicy policy) {
    List<Offer> checked = new ArrayList<>(offers.size());
    for (Offer o : offers) {
      checked.add(o.checked(policy));
    }
    return new PullResponse(generation, nextPullAfterMs, checked, pullId);
  }

  /** Offers that passed the one-offer rules. */
  public List<Offer> acceptedOffers() {
    List<Offer> out = new ArrayList<>(offers.size());
    for (Offer o : offers) {
      if (!o.isRejected()) {
        out.add(o);
      }
    }
    return out;
  }

  /** Offers that broke a one-offer rule: complete each failed/permanent/offer_rejected. */
  public List<Offer> rejectedOffers() {
    List<Offer> out = new ArrayList<>();
    for (Offer o : offers) {
      if (o.isRejected()) {
        out.add(o);
      }
    }
    return out;
  }

  public byte[] toCanonicalBytes() {
    CanonicalWriter w = new CanonicalWriter(256 + offers.size() * 512);
    w.ascii("{\"generation\":")
        .number(generation)
        .ascii(",\"nextPullAfterMs\":")
        .number(nextPullAfterMs)
        .ascii(",\"offers\":[");
    for (int i = 0; i < offers.size(); i++) {
      if (i > 0) {
        w.raw(',');
      }
      offers.get(i).write(w);
    }
    w.ascii("],\"pullId\":")
        .string(pullId.value())
        .ascii(",\"schema\":\"qinglong/worker-execution-pull@v1\"}");
    return w.toByteArray();
  }

  /** Parses with {@link OfferPolicy#CONTRACT} (any executor, spec up to 65536 bytes). */
  public static PullResponse parse(byte[] body) throws ContractViolation {
    return parse(body, OfferPolicy.CONTRACT);
  }

  /** Parses and checks every offer against what the client advertised. */
  public static PullResponse parse(byte[] body, OfferPolicy policy) throws ContractViolation {
    try {
      Obj o = Obj.body(body, Operation.PULL.responseCap(), NAMES);
      o.schema(Operation.PULL.schema());
      long g = o.integer("generation");
      long next = o.integer("nextPullAfterMs", 0, MAX_NEXT_PULL_AFTER_MS);
      List<JsonValue> arr = o.array("offers");
      List<Offer> offers = new ArrayList<>(arr.size());
      for (int i = 0; i < arr.size(); i++) {
        offers.add(Offer.read(Obj.of(arr.get(i), "/offers/" + i, Offer.NAMES)).checked(policy));
      }
      PullId id;
      try {
        id = PullId.of(o.string("pullId"));
      } catch (ContractViolation e) {
        throw e.pointer().isEmpty() ? e.under("/pullId") : e;
      }
      return new PullResponse(g, next, offers, id);
    } catch (InvalidWireValueException e) {
      throw e.violation(); // a rule the record enforces itself (ranges, slots, transitions)
    }
  }
}
