package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The published pattern strings ({@link WorkerId#PATTERN}, {@link Capability#LABEL_KEY_PATTERN},
 * {@link Failure#CODE_PATTERN}) say exactly what the hand-written checks accept: other modules
 * quote them in messages and the journal mirrors the failure code by regex. {@link
 * Offer#isIdempotencyKey}, which the runtime checks again, accepts what an offer accepts.
 */
class PatternConstantsProperties {
  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.strings()
        .withCharRange(' ', '~')
        .withChars("\u001f\u007f\u00e9\t")
        .ofMinLength(0)
        .ofMaxLength(130)
        .edgeCases(
            c -> c.add("").add("k".repeat(128)).add("k".repeat(129)).add("~ ").add("\u007f"));
  }

  @Property(tries = 2000)
  void idempotencyKey(@ForAll("keys") String s) {
    boolean offered;
    try {
      Offer.of(1, s, new RunId("r1"), NoopSpec.INSTANCE, 5);
      offered = true;
    } catch (InvalidWireValueException e) {
      offered = false;
    }
    assertThat(Offer.isIdempotencyKey(s)).isEqualTo(offered);
  }

  @Provide
  Arbitrary<String> candidates() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withCharRange('0', '9')
        .withChars("AZ-_./ ")
        .ofMinLength(0)
        .ofMaxLength(70)
        .edgeCases(c -> c.add("a").add("a".repeat(63)).add("a".repeat(64)).add("a".repeat(65)));
  }

  @Property(tries = 2000)
  void workerId(@ForAll("candidates") String s) {
    assertThat(WorkerId.isValid(s)).isEqualTo(Pattern.matches(WorkerId.PATTERN, s));
  }

  @Property(tries = 2000)
  void labelKey(@ForAll("candidates") String s) {
    assertThat(Capability.isValidLabelKey(s))
        .isEqualTo(Pattern.matches(Capability.LABEL_KEY_PATTERN, s));
  }

  @Property(tries = 2000)
  void failureCode(@ForAll("candidates") String s) {
    assertThat(Failure.isValidCode(s)).isEqualTo(Pattern.matches(Failure.CODE_PATTERN, s));
  }
}
