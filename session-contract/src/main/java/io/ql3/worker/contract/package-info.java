/**
 * The ql3w v1 wire contract: wire records with canonical serializers and strict parsers,
 * identifiers, the path allow-list, error codes, offer rules and drift checks. Pure: no I/O, no
 * threads, no clocks of its own.
 *
 * <p>Entry points: {@link io.ql3.worker.contract.Operation} (schemas, caps), {@link
 * io.ql3.worker.contract.OperationPath} (the five paths), the request/response records ({@code
 * parse(byte[])}, {@code toCanonicalBytes()}), {@link io.ql3.worker.contract.ErrorBody}, {@link
 * io.ql3.worker.contract.DriftCheck}, {@link io.ql3.worker.contract.CapabilityBuilder}, {@link
 * io.ql3.worker.contract.OutputTail}, {@link io.ql3.worker.contract.Uuid7Generator}, {@link
 * io.ql3.worker.contract.CanonicalJson}. Every parser throws only {@link
 * io.ql3.worker.contract.ContractViolation}; record constructors throw {@link
 * io.ql3.worker.contract.InvalidWireValueException} (an {@code IllegalArgumentException}) for
 * values that break the contract.
 */
package io.ql3.worker.contract;
