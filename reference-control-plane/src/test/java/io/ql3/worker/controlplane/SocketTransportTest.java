package io.ql3.worker.controlplane;

import static io.ql3.worker.controlplane.Bodies.path;
import static io.ql3.worker.controlplane.Harness.W1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.epoll.Epoll;
import io.ql3.worker.contract.HeartbeatResponse;
import io.ql3.worker.contract.RegisterResponse;
import io.ql3.worker.controlplane.ingress.Alpn;
import io.ql3.worker.controlplane.ingress.SocketTransport;
import java.net.http.HttpClient;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The server's socket transport: epoll where it loads (the packaged default on Linux), NIO
 * everywhere.
 */
class SocketTransportTest {

  @Test
  void parsesTheThreeNamesAndRefusesOthers() {
    assertThat(SocketTransport.parse("auto")).isEqualTo(SocketTransport.AUTO);
    assertThat(SocketTransport.parse(" EPOLL ")).isEqualTo(SocketTransport.EPOLL);
    assertThat(SocketTransport.parse("nio")).isEqualTo(SocketTransport.NIO);
    assertThatThrownBy(() -> SocketTransport.parse("kqueue"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("auto, epoll or nio");
  }

  @Test
  void autoIsEpollOnLinuxX8664BecauseTheNativeLibraryIsPackaged() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    if (!os.contains("linux") || !("amd64".equals(arch) || "x86_64".equals(arch))) {
      assertThat(SocketTransport.AUTO.resolve()).isIn(SocketTransport.EPOLL, SocketTransport.NIO);
      return;
    }
    // A missing or unloadable linux-x86_64 native jar would silently cost ~10-30 % CPU per request.
    assertThat(Epoll.isAvailable()).as("%s", Epoll.unavailabilityCause()).isTrue();
    assertThat(SocketTransport.AUTO.resolve()).isEqualTo(SocketTransport.EPOLL);
  }

  @Test
  void theNioFallbackServesTheSameContractOverH2AndHttp1() throws Exception {
    try (Harness h = new Harness(Alpn.H2_AND_HTTP1, SocketTransport.NIO)) {
      assertThat(h.events).anyMatch(e -> e.startsWith("serving ") && e.contains("transport=nio"));
      for (HttpClient.Version version :
          new HttpClient.Version[] {HttpClient.Version.HTTP_2, HttpClient.Version.HTTP_1_1}) {
        WorkerClient c = h.client(W1, version);
        String s = Bodies.newId();
        WorkerClient.Res reg = c.post(path(W1, s, "register"), Bodies.register(4, 4));
        assertThat(reg.status()).as(reg.text()).isEqualTo(200);
        long generation = RegisterResponse.parse(reg.body()).generation();
        h.clock.advance(10_000);
        WorkerClient.Res beat =
            c.post(path(W1, s, "heartbeat"), Bodies.heartbeat(generation, 1, 4, 4));
        assertThat(beat.status()).as(beat.text()).isEqualTo(200);
        assertThat(beat.version()).isEqualTo(version.name());
        assertThat(HeartbeatResponse.parse(beat.body()).version()).isEqualTo(2);
        c.close();
      }
    }
  }
}
