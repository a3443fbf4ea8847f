package io.ql3.worker.contract;

import java.util.Set;
import java.util.TreeSet;

/**
 * What the client advertised, against which each offer is checked: executor names and {@code
 * maxSpecBytes}. {@link #CONTRACT} accepts any executor name and the contract's maximum spec size
 * (65536): the check a parser without client context can make.
 *
 * @param advertisedExecutors executor names; null means "any"
 */
public record OfferPolicy(Set<String> advertisedExecutors, int maxSpecBytes) {
  public static final OfferPolicy CONTRACT = new OfferPolicy(null, Limits.MAX_SPEC_BYTES);

  public OfferPolicy {
    advertisedExecutors = advertisedExecutors == null ? null : Set.copyOf(advertisedExecutors);
    Check.range(maxSpecBytes, 1, Limits.MAX_SPEC_BYTES, "/maxSpecBytes");
  }

  /** The policy of a capability (its executors and limits.maxSpecBytes). */
  public static OfferPolicy of(Capability capability) {
    return new OfferPolicy(
        new TreeSet<>(capability.executorNames()), capability.limits().maxSpecBytes());
  }

  public boolean advertises(String executor) {
    return advertisedExecutors == null || advertisedExecutors.contains(executor);
  }
}
