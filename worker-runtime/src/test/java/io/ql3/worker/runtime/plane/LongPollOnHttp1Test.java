package io.ql3.worker.runtime.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.ql3.worker.contract.SessionId;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.ConnectionRegistry;
import io.ql3.worker.runtime.session.SessionLease;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review defect #6: a long poll chosen for h2 ({@code waitMs} 55 s) must never go out on http/1.1,
 * where it would hold the one connection (contract section 1), and its identical resend after an
 * unknown outcome cannot be shortened (sections 3 and 6). The reference control plane cannot change
 * its ALPN while keeping its sessions (a restarted one forgets them and fences at once), so it
 * serves http/1.1 only and the h2 side is played at the {@link PlaneIngress} seam: the plane is
 * told the last connection spoke h2, and in the second test the first try of the long poll is
 * delivered as it would have been on that h2 connection. Everything else is real: the plane, the
 * journal, the transport, TLS 1.3 and the server's parking and replay.
 */
class LongPollOnHttp1Test {
  @TempDir Path dir;
  PlaneHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  private long requestsOnTheWire() {
    return Stream.concat(
            h.cp.connections().open().stream(), h.cp.connections().recentlyClosed().stream())
        .mapToLong(ConnectionRegistry.ConnectionView::requests)
        .sum();
  }

  @Test
  void aLongPollChosenForH2IsNotSentOnHttp1AndAShortPullReplacesIt() throws Exception {
    h = new PlaneHarness(dir, Alpn.HTTP1_ONLY, List.of("noop"), getClass().getClassLoader());
    SessionLease lease = h.registerNew(1);
    long registerRequests = requestsOnTheWire();
    h.ingress.staleH2.set(1);

    h.tick(lease); // the transport's last protocol says h2: a 55 s long poll is built
    h.answer(lease); // refused unsent on the http/1.1 connection; a short pull goes out at once
    h.answer(lease); // its (empty) answer

    assertThat(h.ingress.calls).hasSize(2);
    assertThat(h.ingress.calls.get(0)).startsWith("longPoll ").endsWith(" waitMs=55000");
    assertThat(h.ingress.calls.get(1)).startsWith("pull ").endsWith(" waitMs=0");
    assertThat(h.ingress.calls.get(1).split(" ")[1])
        .as("a new pullId: the first never left")
        .isNotEqualTo(h.ingress.calls.get(0).split(" ")[1]);
    assertThat(requestsOnTheWire() - registerRequests)
        .as("only the short pull reached the server")
        .isEqualTo(1);
    assertThat(h.cp.controlPlane().parkedCount()).isZero();
    assertThat(h.journal.facts().openPulls()).as("both reservations closed").isEmpty();
    assertThat(h.plane.pullOutstanding()).isFalse();
    assertThat(h.events).doesNotContain("unrecoverable");
    assertThat(h.cp.auditor().violations()).isEmpty();
  }

  @Test
  void aLostLongPollIsNeverResentOnHttp1AndItsSessionIsGivenUp() throws Exception {
    h = new PlaneHarness(dir, Alpn.HTTP1_ONLY, List.of("noop"), getClass().getClassLoader());
    SessionLease lease = h.registerNew(1);
    long registerRequests = requestsOnTheWire();
    h.ingress.staleH2.set(1);
    // The first try goes out as on the h2 connection; the server parks it (nothing queued).
    h.ingress.longPollRoute =
        a -> {
          h.ingress.longPollRoute = null; // later tries: the real h2-only long poll
          return h.client.pull(
              (SessionId) a[0],
              (io.ql3.worker.contract.PullRequest) a[1],
              (io.ql3.worker.contract.OfferPolicy) a[2]);
        };
    h.tick(lease);
    io.ql3.worker.runtime.plane.PlaneHarnessAwait.until(
        "the server parks the long poll", () -> h.cp.controlPlane().parkedCount() == 1);
    h.cp.connections().closeAll(); // the connection drops: outcome unknown
    h.answer(lease);
    assertThat(h.plane.pullOutstanding()).as("kept for an identical resend").isTrue();

    h.advance(1_000);
    h.tick(lease); // the resend: the reconnect speaks http/1.1, so it is refused unsent
    h.answer(lease);

    assertThat(h.ingress.calls).hasSize(2);
    assertThat(h.ingress.calls.get(1))
        .as("the identical request was tried")
        .isEqualTo(h.ingress.calls.get(0));
    assertThat(requestsOnTheWire() - registerRequests)
        .as("only the first try reached the server")
        .isEqualTo(1);
    assertThat(h.cp.controlPlane().parkedCount())
        .as("nothing holds the http/1.1 connection")
        .isZero();
    // No run of the session is held: the pull is given up and the session must end.
    assertThat(h.events).containsExactly("unrecoverable");
    assertThat(h.plane.pullOutstanding()).isFalse();
    assertThat(h.journal.facts().openPulls()).isEmpty();

    h.advance(60_000);
    h.tick(lease);
    assertThat(h.ingress.calls).as("no pull under the given-up session").hasSize(2);
    assertThat(h.cp.auditor().violations()).isEmpty();
  }
}
