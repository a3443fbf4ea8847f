#!/bin/sh
# sd_notify on arm64, on an x86_64 machine: runs the agent's own notification sender
# (SystemdService, the same class `run` uses) in Debian's arm64 OpenJDK 17 under qemu user-mode
# emulation, with the jars of the built tarball's lib/ (so Netty's linux-aarch_64 native epoll
# library as shipped), and checks that its READY=1 datagram reaches a Unix datagram socket bound
# by a host (x86_64) JVM. The arm64 JVM runs with the edge profile's JVM flags.
#
# qemu-aarch64-static is called explicitly with -L SYSROOT: no binfmt_misc registration is used or
# changed. Needs root the first time: installs qemu-user-static, adds the arm64 dpkg architecture
# and downloads (apt-get download, ~46 MB) openjdk-17-jre-headless:arm64, libc6, libgcc-s1,
# libstdc++6 and zlib1g into the cache directory, extracted there with dpkg -x (nothing installed
# for arm64). Not part of scripts/test (downloads; about a minute). Result: docs/install.md.
#
# Usage: bench/scripts/arm64-notify.sh [TARBALL]   (default: packaging/target/ql3-worker-*-linux-*.tar.gz)
# Env:   QL3_ARM64_CACHE  where the arm64 packages and sysroot are kept (default /var/cache/ql3-arm64)
set -eu
cd "$(dirname "$0")/../.."
. scripts/jvm-flags.sh
tgz=${1:-$(ls -t packaging/target/ql3-worker-*-linux-*.tar.gz 2>/dev/null | head -1 || true)}
[ -n "$tgz" ] && [ -f "$tgz" ] || { echo "arm64-notify: no tarball: mvn -DskipTests package -pl packaging -am" >&2; exit 2; }
cache=${QL3_ARM64_CACHE:-/var/cache/ql3-arm64}
tmp=$(mktemp -d)
recv=
trap '[ -z "$recv" ] || kill "$recv" 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM

# --- the emulator and an arm64 JRE ----------------------------------------------------------------
if ! command -v qemu-aarch64-static >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null
fi
sysroot=$cache/sysroot
jre=$sysroot/usr/lib/jvm/java-17-openjdk-arm64
if [ ! -x "$jre/bin/java" ]; then
  mkdir -p "$cache/debs"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
  fi
  apt-get update -qq
  # (as root into a root-owned directory apt warns that the download is not sandboxed: harmless)
  (cd "$cache/debs" && apt-get download -qq openjdk-17-jre-headless:arm64 libc6:arm64 libgcc-s1:arm64 \
    libstdc++6:arm64 zlib1g:arm64 2>&1 | grep -v 'Download is performed unsandboxed' || true)
  ls "$cache"/debs/openjdk-17-jre-headless_*_arm64.deb >/dev/null || { echo "arm64-notify: FAIL: apt-get download" >&2; exit 1; }
  rm -rf "$sysroot" && mkdir -p "$sysroot"
  for d in "$cache"/debs/*_arm64.deb; do dpkg -x "$d" "$sysroot"; done
fi
echo "arm64-notify: $(qemu-aarch64-static --version | head -1); $(file -b "$jre/lib/server/libjvm.so" | cut -d, -f1-2)"

# --- the shipped jars and the probe -----------------------------------------------------------------
tar -xzf "$tgz" -C "$tmp"
lib=$(echo "$tmp"/*/lib)
nat=$(ls "$lib" | grep 'netty-transport-native-epoll-.*-linux-aarch_64\.jar$') \
  || { echo "arm64-notify: FAIL: no linux-aarch_64 native epoll jar in $tgz" >&2; exit 1; }
mkdir "$tmp/classes"
cat > "$tmp/NotifyProbe.java" <<'JAVA'
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollDomainDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainDatagramPacket;
import io.netty.channel.unix.DomainSocketAddress;
import io.ql3.worker.runtime.systemd.SystemdService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** send PATH: the agent's notifier says READY=1. receive PATH: prints the first datagram. */
public class NotifyProbe {
  public static void main(String[] a) throws Exception {
    String arch = System.getProperty("os.arch");
    if (a[0].equals("send")) {
      SystemdService s = SystemdService.fromEnvironment(Map.of("NOTIFY_SOCKET", a[1]), ProcessHandle.current().pid(),
          what -> { System.out.println("send: FAIL: " + what); System.exit(3); });
      String mapped = Files.readAllLines(Path.of("/proc/self/maps")).stream()
          .filter(l -> l.contains("netty_transport_native_epoll")).map(l -> l.trim().split("\\s+", 6)[5])
          .findFirst().orElse("none");
      System.out.println("send: os.arch=" + arch + " notifier=" + s.describe() + " native=" + mapped);
      s.ready(SystemdService.Readiness.READY_REGISTERED, "arm64 probe: os.arch=" + arch);
      s.close();
      return;
    }
    CountDownLatch got = new CountDownLatch(1);
    var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    var ch = new Bootstrap().group(group).channel(EpollDomainDatagramChannel.class)
        .handler(new SimpleChannelInboundHandler<DomainDatagramPacket>() {
          @Override protected void channelRead0(ChannelHandlerContext ctx, DomainDatagramPacket p) {
            System.out.println("receive: os.arch=" + arch + " datagram="
                + p.content().toString(StandardCharsets.UTF_8).replace("\n", "\\n"));
            System.out.flush();
            got.countDown();
          }
        }).bind(new DomainSocketAddress(a[1])).sync().channel();
    System.out.println("receive: bound " + a[1]);
    System.out.flush();
    boolean ok = got.await(Long.parseLong(a[2]), TimeUnit.SECONDS);
    ch.close().sync();
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    System.exit(ok ? 0 : 1);
  }
}
JAVA
javac -d "$tmp/classes" -cp "$lib/*" --release 17 "$tmp/NotifyProbe.java"

# --- host receiver, arm64 sender --------------------------------------------------------------------
sock=$tmp/notify.sock
java -cp "$tmp/classes:$lib/*" NotifyProbe receive "$sock" 300 > "$tmp/recv.out" 2>&1 &
recv=$!
i=0
until [ -S "$sock" ]; do
  i=$((i + 1)); [ "$i" -lt 600 ] && kill -0 "$recv" 2>/dev/null || { echo "arm64-notify: FAIL: receiver did not bind" >&2; cat "$tmp/recv.out" >&2; exit 1; }
  sleep 0.1
done
started=$(date +%s)
printf 'aarch64\n' > "$tmp/arch"  # the flags of an aarch64 host, not of this one
# shellcheck disable=SC2046
qemu-aarch64-static -L "$sysroot" "$jre/bin/java" $(QL3_ARCH_FILE=$tmp/arch ql3_jvm_flags edge) -cp "$tmp/classes:$lib/*" \
  NotifyProbe send "$sock" > "$tmp/send.out" 2>&1 || { echo "arm64-notify: FAIL: the arm64 sender:" >&2; cat "$tmp/send.out" >&2; exit 1; }
took=$(( $(date +%s) - started ))
wait "$recv" || { echo "arm64-notify: FAIL: no datagram received" >&2; cat "$tmp/recv.out" "$tmp/send.out" >&2; recv=; exit 1; }
recv=
cat "$tmp/send.out" "$tmp/recv.out"
grep -q '^send: os.arch=aarch64 .* native=.*netty_transport_native_epoll_aarch_64' "$tmp/send.out" \
  && grep -q '^receive: os.arch=amd64 datagram=READY=1\\nSTATUS=arm64 probe: os.arch=aarch64$' "$tmp/recv.out" \
  || { echo "arm64-notify: FAIL: unexpected output" >&2; exit 1; }
echo "arm64-notify: OK: $nat loaded by an aarch64 JVM (edge flags, qemu user mode, ${took} s) and its READY=1 datagram arrived"
