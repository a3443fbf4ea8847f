package io.ql3.worker.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URL;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The allow-list by construction: the public API exposes the five operations (and resends of their
 * exact earlier bytes) and nothing that accepts a path, URL or raw body. Paths come only from the
 * contract's OperationPath factories; the raw exchange layer is package-private.
 */
class AllowListTest {
  @Test
  void publicApiIsExactlyTheFiveOperationsAndNoFreeFormPath() {
    Set<String> names = new TreeSet<>();
    for (Method m : IngressClient.class.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers())) {
        continue;
      }
      names.add(m.getName());
      for (Class<?> p : m.getParameterTypes()) {
        assertThat(p)
            .as("%s takes %s", m, p)
            .isNotIn(String.class, CharSequence.class, URI.class, URL.class, byte[].class);
      }
    }
    // longPoll is a pull (same path, h2 only); handshake (check --connect) and connectAhead send no
    // request at all.
    assertThat(names)
        .containsExactlyInAnyOrder(
            "open",
            "register",
            "heartbeat",
            "transition",
            "pull",
            "longPoll",
            "complete",
            "resend",
            "handshake",
            "connectAhead",
            "abortPulls",
            "connectionsOpened",
            "maxOpenSockets",
            "protocol",
            "close");
  }

  @Test
  void rawExchangeLayerIsNotPublic() {
    assertThat(Modifier.isPublic(IngressConnection.class.getModifiers())).isFalse();
    assertThat(Arrays.stream(SentRequest.class.getConstructors())).isEmpty();
  }

  @Test
  void everyPathTheClientCanBuildParsesBackAsAnAllowListedOperation() throws Exception {
    var w = io.ql3.worker.contract.WorkerId.of("edge-0001");
    var s = io.ql3.worker.contract.SessionId.of("01938a6e-4f1c-7b2a-9d3e-5c7f1a2b3c4d");
    var r = io.ql3.worker.contract.RunId.of("run-1");
    for (var p :
        new io.ql3.worker.contract.OperationPath[] {
          io.ql3.worker.contract.OperationPath.register(w, s),
              io.ql3.worker.contract.OperationPath.heartbeat(w, s),
          io.ql3.worker.contract.OperationPath.transition(w, s),
              io.ql3.worker.contract.OperationPath.pull(w, s),
          io.ql3.worker.contract.OperationPath.complete(w, s, r)
        }) {
      assertThat(io.ql3.worker.contract.OperationPath.parse(p.path())).isEqualTo(p);
    }
  }
}
