# shellcheck shell=sh
# The ONE place that chooses the agent's JVM flags by profile. Sourced by bin/ql3-worker (source
# checkout) and by the packaged launcher (lib/ql3-worker/libexec/jvm-flags.sh). Tested by
# scripts/test-launcher. Why these flags: docs/performance.md.

# Prints the value of --profile / --profile=P in the arguments, else the profile key of the --config
# file, or "node" when there is neither.
ql3_profile_of() {
  _p=
  _c=
  _prev=
  for _a in "$@"; do
    case "$_prev" in --profile) _p=$_a ;; --config) _c=$_a ;; esac
    case "$_a" in --profile=*) _p=${_a#--profile=} ;; --config=*) _c=${_a#--config=} ;; esac
    _prev=$_a
  done
  # No --profile: the configuration's top-level `profile = "..."` (before its first [table]).
  if [ -z "$_p" ] && [ -n "$_c" ] && [ -r "$_c" ]; then
    _p=$(sed -n -e '/^[[:space:]]*\[/q' -e 's/^[[:space:]]*profile[[:space:]]*=[[:space:]]*"\([a-z]*\)".*/\1/p' "$_c" | head -1)
  fi
  printf '%s\n' "${_p:-node}"
}

# `run --instance NAME` (the unit's ExecStart) becomes `run --config FILE ...`, the one place this
# rule lives: $QL3_CONFIG_DIR/NAME.toml (default /etc/ql3-worker) when it exists, one worker per
# file and several per host; else, for NAME edge or node, the single-worker layout
# agent.toml with --profile NAME; else NAME.toml anyway (the agent then says it is missing, 78).
# Sets ql3_args to the rewritten arguments, quoted for `eval "set -- $ql3_args"`.
ql3_instance_args() {
  ql3_args=
  _dir=${QL3_CONFIG_DIR:-/etc/ql3-worker}
  _prev=
  for _a in "$@"; do
    if [ "$_prev" = --instance ]; then
      if [ ! -e "$_dir/$_a.toml" ] && { [ "$_a" = edge ] || [ "$_a" = node ]; }; then
        ql3_args="$ql3_args --config $(ql3_quote "$_dir/agent.toml") --profile $(ql3_quote "$_a")"
      else
        ql3_args="$ql3_args --config $(ql3_quote "$_dir/$_a.toml")"
      fi
    elif [ "$_a" != --instance ]; then
      ql3_args="$ql3_args $(ql3_quote "$_a")"
    fi
    _prev=$_a
  done
}

# One argument in single quotes, for eval.
ql3_quote() {
  printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# Prints the JVM flags for a profile. Why each edge flag (measured: docs/performance.md):
# - the edge agent idles, so memory is its binding constraint and the JIT is not needed: -Xint
#   saves ~5 MiB of peak RSS (code cache, compiler thread and arenas, profiling data) over C1-only.
#   The C1 flags stay so that QL3_JAVA_OPTS=-Xmixed gives back a lean JIT (+5 MiB) if wanted.
# - the serial heap is kept small and tight (live set ~7 MiB): -Xmx16m as a safety ceiling, but
#   MinHeapFreeRatio=10 keeps the old generation near the live set instead of growing to -Xmx;
#   -Xmn1m because all of eden is touched; -Xms4m because the initial heap would otherwise be
#   the maximum on a big machine.
# - -XX:+ExitOnOutOfMemoryError (both profiles): a heap exhausted by anything is a process exit
#   (systemd restarts it), never a zombie that heartbeats but can no longer pull or record.
# node gets more heap and the full JIT. Anything else gets the node flags (the agent itself
# refuses an unknown profile with exit 64).
ql3_jvm_flags() {
  case "$1" in
    edge) printf '%s\n' "-XX:+UseSerialGC -Xms4m -Xmx16m -Xmn1m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=25 -Xss256k -Xint -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=48m -XX:CICompilerCount=1 -XX:-UsePerfData -XX:+ExitOnOutOfMemoryError -Dio.netty.allocator.type=unpooled -Dio.netty.jfr.enabled=false" ;;
    *)    printf '%s\n' "-XX:+UseSerialGC -Xmx128m -Xss512k -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m -XX:-UsePerfData -XX:+ExitOnOutOfMemoryError -Dio.netty.allocator.type=unpooled -Dio.netty.jfr.enabled=false" ;;
  esac
}
