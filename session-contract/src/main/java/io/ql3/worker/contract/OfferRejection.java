package io.ql3.worker.contract;

/**
 * Why one offer is rejected (a rule about one offer, section 5 OFFER): the client never executes it
 * and completes it failed/permanent/{@code offer_rejected}. Not drift: the pull answer and the
 * session stand.
 *
 * @param reason which one-offer rule broke
 * @param violation for {@link Reason#SPEC_INVALID}: the spec's violation reason; else null
 * @param pointer pointer inside the offer ({@code /spec/...} for spec rules, {@code /executor},
 *     {@code /specDigest})
 * @param detail human explanation (also used as the completion's failure message)
 */
public record OfferRejection(
    Reason reason, ViolationReason violation, String pointer, String detail) {
  /** The failure code a rejected offer is completed with. */
  public static final String FAILURE_CODE = "offer_rejected";

  public enum Reason {
    UNADVERTISED_EXECUTOR,
    SPEC_INVALID,
    SPEC_TOO_LARGE,
    SPEC_DIGEST_MISMATCH;

    public String code() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public OfferRejection {
    java.util.Objects.requireNonNull(reason, "reason");
    java.util.Objects.requireNonNull(pointer, "pointer");
    java.util.Objects.requireNonNull(detail, "detail");
  }

  /**
   * Vector-style reason: the violation's code for an invalid spec, else the rejection reason's
   * code.
   */
  public String code() {
    return reason == Reason.SPEC_INVALID && violation != null ? violation.code() : reason.code();
  }

  /**
   * The failure to complete the offer with: permanent, {@code offer_rejected}, this detail (≤ 1024
   * characters).
   */
  public Failure failure() {
    String msg = detail;
    if (msg.codePointCount(0, msg.length()) > Failure.MAX_MESSAGE_CHARS) {
      msg = msg.substring(0, msg.offsetByCodePoints(0, Failure.MAX_MESSAGE_CHARS));
    }
    return new Failure(FailureCategory.PERMANENT, FAILURE_CODE, msg);
  }
}
