package io.ql3.worker.runtime.systemd;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * An unbound {@code AF_UNIX}/{@code SOCK_DGRAM} socket from Netty's native epoll library, sending
 * to the {@code NOTIFY_SOCKET} path. Pure Java (17..25) cannot: its Unix-domain channels are stream
 * only. Netty's {@link Socket} is used directly, not an {@code EpollDomainDatagramChannel}: one
 * {@code sendto(2)} per notification on the caller's thread needs no event loop (no extra thread,
 * no selector) — the same native library, a smaller footprint on edge boards.
 *
 * <p>The only class that touches Netty's native transport: {@link SystemdNotify} loads it only when
 * {@code NOTIFY_SOCKET} is set, so without systemd the library is never extracted or mapped.
 */
final class EpollNotifySocket implements Notifier {
  private final String display;
  private final byte[] address;
  private final Socket socket;

  private EpollNotifySocket(String display, byte[] address, Socket socket) {
    this.display = display;
    this.address = address;
    this.socket = socket;
  }

  /**
   * Opens the socket. {@code path} is {@code NOTIFY_SOCKET}: a file system path, or {@code @name}
   * for the abstract namespace.
   *
   * @throws Throwable whatever the native library throws when it cannot load (an {@link
   *     UnsatisfiedLinkError}, an {@link IOException}…); the caller turns it into a no-op
   */
  static EpollNotifySocket open(String path) throws Throwable {
    Epoll.ensureAvailability();
    byte[] addr = path.getBytes(StandardCharsets.UTF_8);
    if (addr.length > 0 && addr[0] == '@') {
      addr[0] = 0;
    }
    return new EpollNotifySocket(path, addr, Socket.newSocketDomainDgram());
  }

  @Override
  public synchronized boolean send(String state) {
    byte[] bytes = state.getBytes(StandardCharsets.UTF_8);
    ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length);
    buf.put(bytes).flip();
    try {
      return socket.sendToDomainSocket(buf, 0, bytes.length, address) == bytes.length;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public String describe() {
    return display;
  }

  @Override
  public synchronized void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to release beyond the descriptor
    }
  }
}
