#!/bin/sh
# The RSS floor: a bare JVM that prints hello, stays alive briefly and is sampled from /proc, with
# the same flags as the agent's edge profile (taken from scripts/jvm-flags.sh). Run for each JDK given (default: the java on PATH).
# Usage: bench/scripts/jvm-floor.sh [JAVA_HOME...]
set -eu
cd "$(dirname "$0")/../.."
. scripts/jvm-flags.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/Hello.java" <<'JAVA'
public class Hello {
  public static void main(String[] a) throws Exception {
    System.out.println("hello");
    System.out.flush();
    Thread.sleep(1500);
  }
}
JAVA
# The launcher's own edge flags (one owner: scripts/jvm-flags.sh).
EDGE_FLAGS=$(ql3_jvm_flags edge)
homes=${*:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
for home in $homes; do
  "$home/bin/javac" -d "$tmp" "$tmp/Hello.java" 2>/dev/null || javac --release 17 -d "$tmp" "$tmp/Hello.java"
  for flags in "" "$EDGE_FLAGS"; do
    for i in 1 2 3; do
      # shellcheck disable=SC2086
      "$home/bin/java" $flags -cp "$tmp" Hello >/dev/null &
      pid=$!
      sleep 1
      hwm=$(awk '/^VmHWM:/{print $2}' /proc/$pid/status)
      rss=$(awk '/^VmRSS:/{print $2}' /proc/$pid/status)
      wait $pid
      printf '%s\t%s\trun %d\trss_mib=%s\thwm_mib=%s\n' "$("$home/bin/java" -version 2>&1 | head -1 | cut -d'"' -f2)" \
        "$(if [ -n "$flags" ]; then echo edge-flags; else echo default-flags; fi)" "$i" \
        "$(awk -v k="$rss" 'BEGIN{printf "%.1f", k/1024}')" "$(awk -v k="$hwm" 'BEGIN{printf "%.1f", k/1024}')"
    done
  done
done
