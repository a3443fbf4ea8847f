package io.ql3.worker.cli.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real HTTP proxy on 127.0.0.1: Debian's {@code tinyproxy}, run in the foreground with its own
 * configuration and log. {@code scripts/test} installs the package; without it this fails, it does
 * not skip.
 */
final class TinyProxy implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/bin/tinyproxy");

  final int port;
  final Path log;
  private final Process process;

  TinyProxy(Path dir) throws IOException, InterruptedException {
    if (!Files.isExecutable(BINARY)) {
      throw new AssertionError(
          BINARY + " is missing: apt-get install tinyproxy (scripts/test does)");
    }
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Files.createDirectories(dir);
    log = dir.resolve("tinyproxy.log");
    Path conf = dir.resolve("tinyproxy.conf");
    Files.writeString(
        conf,
        """
        Port %d
        Listen 127.0.0.1
        Timeout 120
        MaxClients 16
        Allow 127.0.0.1
        LogLevel Connect
        LogFile "%s"
        """
            .formatted(port, log));
    process =
        new ProcessBuilder(BINARY.toString(), "-d", "-c", conf.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("tinyproxy.out").toFile())
            .start();
    ControlPlaneFixture.await(
        "tinyproxy listening on " + port,
        Duration.ofSeconds(30),
        () -> {
          try (Socket c = new Socket()) {
            c.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
          } catch (IOException e) {
            return false;
          }
        });
  }

  String url() {
    return "http://127.0.0.1:" + port;
  }

  String logText() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }
}
