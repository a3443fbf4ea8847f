package io.ql3.worker.controlplane.state;

/**
 * One parked long poll: the session and pull it came with, and where its answer goes. Compared by
 * identity (it is the handle of {@link ControlPlane.Parked}). Guarded by the {@link ControlPlane}
 * lock.
 */
final class ParkedPull {
  final Session session;
  final Commands.Pull command;
  final ControlPlane.PullWaiter waiter;

  ParkedPull(Session session, Commands.Pull command, ControlPlane.PullWaiter waiter) {
    this.session = session;
    this.command = command;
    this.waiter = waiter;
  }
}
