package io.ql3.worker.controlplane;

import io.ql3.worker.controlplane.ingress.SocketTransport;
import picocli.CommandLine;

/** {@code --transport}: a typed error for anything but auto, epoll or nio. */
final class TransportConverter implements CommandLine.ITypeConverter<SocketTransport> {
  @Override
  public SocketTransport convert(String value) {
    try {
      return SocketTransport.parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
