package io.ql3.worker.controlplane.ingress;

import io.ql3.worker.controlplane.state.Auditor;
import io.ql3.worker.controlplane.state.ControlPlane;
import io.ql3.worker.controlplane.state.EventLog;
import io.ql3.worker.controlplane.state.FaultPlan;

/** What every ingress handler needs, built once by the server. */
record IngressContext(
    ControlPlane controlPlane,
    ContractWire wire,
    TokenStore tokens,
    FaultPlan faults,
    ConnectionRegistry connections,
    RequestStats stats,
    Auditor auditor,
    EventLog log,
    boolean verbose) {}
