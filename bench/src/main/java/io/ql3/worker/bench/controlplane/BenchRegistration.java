package io.ql3.worker.bench.controlplane;

import io.ql3.worker.contract.CapabilityBuilder;
import io.ql3.worker.contract.ContractViolation;
import io.ql3.worker.contract.Profile;
import io.ql3.worker.contract.RegisterRequest;

/** The register body every simulated worker of the control-plane benchmarks sends. */
final class BenchRegistration {
  private BenchRegistration() {}

  /** A node worker with the noop executor and 4 slots, in its canonical bytes. */
  static byte[] body() throws ContractViolation {
    return RegisterRequest.of(
            new CapabilityBuilder()
                .agent("0.1.0", "0123456789abcdef0123456789abcdef01234567")
                .architecture("amd64")
                .executor("noop", "1")
                .limits(4, 65536, 4)
                .profile(Profile.NODE)
                .build(),
            4)
        .toCanonicalBytes();
  }
}
