# shellcheck shell=sh
# The ONE place that chooses the agent's JVM flags by profile. Sourced by bin/ql3-worker (source
# checkout) and by the packaged launcher (lib/ql3-worker/libexec/jvm-flags.sh). Tested by
# scripts/test-launcher. Why these flags: docs/performance.md and /work/shared/notes/footprint.md.

# Prints the value of --profile / --profile=P in the arguments, or "node" when there is none.
ql3_profile_of() {
  _p=node
  _prev=
  for _a in "$@"; do
    case "$_prev" in --profile) _p=$_a ;; esac
    case "$_a" in --profile=*) _p=${_a#--profile=} ;; esac
    _prev=$_a
  done
  printf '%s\n' "$_p"
}

# Prints the JVM flags for a profile: edge is a small device (small heap, serial GC, small thread
# stacks, C1 only); node gets more heap and the full JIT. Anything else gets the node flags (the
# agent itself refuses an unknown profile with exit 64).
ql3_jvm_flags() {
  case "$1" in
    edge) printf '%s\n' "-XX:+UseSerialGC -Xmx24m -Xmn2m -Xss256k -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=48m -XX:CICompilerCount=1 -XX:-UsePerfData -Dio.netty.allocator.type=unpooled -Dio.netty.jfr.enabled=false" ;;
    *)    printf '%s\n' "-XX:+UseSerialGC -Xmx128m -Xss512k -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m -XX:-UsePerfData -Dio.netty.allocator.type=unpooled -Dio.netty.jfr.enabled=false" ;;
  esac
}
