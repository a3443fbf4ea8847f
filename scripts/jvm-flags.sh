# shellcheck shell=sh
# The rules both launchers share: the ONE place that chooses the agent's JVM flags (and its
# environment and class-data archive) by profile, and reads a runtime's Java version. Sourced by the
# packaged launcher (lib/ql3-worker/libexec/jvm-flags.sh) and, through scripts/lib.sh, by
# bin/ql3-worker and every script of the source checkout. Tested by scripts/test-launcher. Why these
# flags: docs/performance.md.

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
  # No --profile: the configuration's top-level `profile = "..."` or `'...'` (TOML's basic and
  # literal strings; before its first [table]).
  if [ -z "$_p" ] && [ -n "$_c" ] && [ -r "$_c" ]; then
    _p=$(sed -n -e '/^[[:space:]]*\[/q' -e "s/^[[:space:]]*profile[[:space:]]*=[[:space:]]*[\"']\([a-z]*\)[\"'].*/\1/p" "$_c" | head -1)
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
        ql3_quote "$_dir/agent.toml"
        ql3_args="$ql3_args --config $ql3_quoted --profile $_a"
      else
        ql3_quote "$_dir/$_a.toml"
        ql3_args="$ql3_args --config $ql3_quoted"
      fi
    elif [ "$_a" != --instance ]; then
      ql3_quote "$_a"
      ql3_args="$ql3_args $ql3_quoted"
    fi
    _prev=$_a
  done
}

# Sets ql3_home to the installation PROGRAM is the bin/NAME of: its path without /bin/NAME, after
# a link is followed, as a physical path (a JDK reached through /usr/lib/jvm/default-java or an
# installation through a linked directory is named as it is on the disk, so its archive key does
# not depend on how it was reached). Only a link or a relative path costs a readlink.
ql3_home_of() { # PROGRAM
  _p=$1
  case "$_p" in
    /*) [ ! -L "$_p" ] || _p=$(readlink -f "$_p") ;;
    *) _p=$(readlink -f "$_p") ;;
  esac
  ql3_home=$(cd -P -- "${_p%/bin/*}" 2>/dev/null && pwd -P) || ql3_home=${_p%/bin/*}
}

# Sets ql3_major to the Java feature version (17, 21, ...) of the runtime at HOME (a JDK, a JRE or a
# jlink image), or to nothing when it cannot be told. Without starting a JVM: the `JAVA_VERSION` of
# its `release` file, which every one of them has; one without it is asked with JAVA (default
# HOME/bin/java: one more JVM start, ~0.1 s). Builtins otherwise, as both launchers run this at every
# start.
ql3_java_major() { # HOME [JAVA]
  ql3_major=
  if [ -r "$1/release" ]; then
    while IFS= read -r _line || [ -n "$_line" ]; do
      case "$_line" in JAVA_VERSION=\"*) ql3_major=${_line#*\"}; ql3_major=${ql3_major%%\"*}; break ;; esac
    done < "$1/release"
  fi
  if [ -z "$ql3_major" ]; then
    ql3_major=$("${2:-$1/bin/java}" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java.specification.version = //p')
  fi
  ql3_major=${ql3_major#1.}
  ql3_major=${ql3_major%%[!0-9]*}
}

# Sets ql3_quoted to $1 in single quotes, for eval. Builtins only, as everything the launchers run
# before the JVM: a command substitution with a pipe and sed was ~12 ms each on the build machine,
# and the launcher runs at every start (docs/perf/edge.md, "Fourteenth pass").
ql3_quote() {
  _r=$1
  ql3_quoted=
  while :; do
    case "$_r" in
      *"'"*) ql3_quoted="$ql3_quoted${_r%%"'"*}'\\''"; _r=${_r#*"'"} ;;
      *) break ;;
    esac
  done
  ql3_quoted="'$ql3_quoted$_r'"
}

# Prints the JVM flags for a profile. Why each edge flag (measured: docs/perf/flags.md,
# docs/perf/edge.md):
# - the edge agent idles, so memory is its binding constraint and the JIT is not needed: -Xint
#   saves ~5 MiB of peak RSS (code cache, compiler thread and arenas, profiling data) over C1-only.
#   The C1 flags stay so that QL3_JAVA_OPTS=-Xmixed gives back a lean JIT if wanted; the best C1
#   trade measured is "-Xmixed -XX:CompileThresholdScaling=10 -XX:ReservedCodeCacheSize=4m"
#   (measured 2026-12-03: 0.3-0.5 s less CPU to registered, 3-7 ms less per run, +5 MiB).
#   Compiling only the crypto or Netty (CompileCommand=compileonly) was measured and does not pay.
# - the launcher adds the application class-data archive (ql3_cds_flags, below) on JDK 17.
# - the serial heap is kept small and tight (live set ~7 MiB): -Xmx16m as a safety ceiling, but
#   MinHeapFreeRatio=10 keeps the old generation near the live set instead of growing to -Xmx;
#   -Xmn1m because all of eden is touched; -Xms4m because the initial heap would otherwise be
#   the maximum on a big machine.
# - -Dio.netty.noPreferDirect=true (edge): with the unpooled allocator every socket read was a new
#   direct ByteBuffer (allocated, zeroed, given a Cleaner, freed), interpreted; heap buffers are
#   what the JDK's TLS engine works on anyway. Measured (11 pairs): CPU per run -0.4 ms at the
#   median, inside the spread; RSS -0.3 to +0.1 MiB, lower in 6 of 8 readings (docs/perf/edge.md,
#   "Thirteenth pass").
# - -XX:StringTableSize=8192 (edge): the JVM's table of interned strings starts with 65,536
#   buckets (512 KiB, all written at start) for the ~8,400 strings the edge agent interns; 8,192
#   buckets keep one string per bucket on average, and the table grows by itself past two. Measured
#   (docs/perf/edge.md, "Fifteenth pass"): idle and peak RSS -0.3 to -0.7 MiB in six pairs, the
#   floor -0.3 to -0.6, CPU unchanged.
# - -XX:StackShadowPages=10 (edge, x86-64 only): the shadow zone is the stack the JVM keeps free
#   below a Java frame for native code (the JVM's own, the JDK's libraries); the interpreter
#   touches its far end at every call, so every Java thread keeps it resident (20 pages by
#   default). 10 is the smallest JDK 17 accepts on x86-64; on aarch64 its minimum is the default,
#   and a smaller value stops the JVM from starting, so the flag is given only where the kernel
#   says x86_64 (/proc/sys/kernel/arch, Linux 6.1+; elsewhere the default). The trade: native code
#   that needs more than 40 KiB of stack (80 before) when its thread is near the end of its stack
#   crashes the JVM instead of raising a StackOverflowError (under systemd a restart; a tarball
#   install without a supervisor stays down). Measured with MALLOC_ARENA_MAX=2 on the bundled
#   runtime: idle RSS -0.0 to -0.3 MiB (docs/perf/edge.md, "Seventeenth pass").
# - -XX:+ExitOnOutOfMemoryError (both profiles): a heap exhausted by anything is a process exit
#   (systemd restarts it), never a zombie that heartbeats but can no longer pull or record.
# node gets more heap and the full JIT. Anything else gets the node flags (the agent itself
# refuses an unknown profile with exit 64).
ql3_jvm_flags() {
  case "$1" in
    edge)
      # The machine's architecture: /proc/sys/kernel/arch, or the file QL3_ARCH_FILE names (tests,
      # and flags meant for another machine: bench/scripts/arm64-notify.sh).
      _arch=
      [ ! -r "${QL3_ARCH_FILE:-/proc/sys/kernel/arch}" ] || read -r _arch < "${QL3_ARCH_FILE:-/proc/sys/kernel/arch}" || :
      _shadow=
      [ "$_arch" != x86_64 ] || _shadow=" -XX:StackShadowPages=10"
      printf '%s\n' "-XX:+UseSerialGC -Xms4m -Xmx16m -Xmn1m -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=25 -Xss256k -Xint -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=16m -XX:MaxMetaspaceSize=48m -XX:CICompilerCount=1 -XX:-UsePerfData -XX:StringTableSize=8192$_shadow -XX:+ExitOnOutOfMemoryError -Dio.netty.allocator.type=unpooled -Dio.netty.noPreferDirect=true -Dio.netty.jfr.enabled=false" ;;
    *)    printf '%s\n' "-XX:+UseSerialGC -Xmx128m -Xss512k -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=64m -XX:-UsePerfData -XX:+ExitOnOutOfMemoryError -Dio.netty.allocator.type=unpooled -Dio.netty.jfr.enabled=false" ;;
  esac
}

# Exports the environment the agent's JVM starts with, by profile (both launchers, before exec; a
# run inherits none of it unless its passEnvironment names it, docs/executors.md).
# - edge: MALLOC_ARENA_MAX=2 unless it is set (even empty: an operator's way to leave glibc's
#   default, from /etc/default/ql3-worker). glibc gives each thread that allocates an arena of its
#   own, up to 8 per CPU; the agent's dozen threads kept 15 arenas holding 2.5 MiB at idle, and two
#   arenas keep the same allocations in less memory (the JVM's own allocations are few and short).
#   Measured on the bundled runtime: idle RSS -0.2 to -0.4 MiB (docs/perf/edge.md, "Seventeenth
#   pass").
ql3_jvm_env() {
  case "$1" in
    edge) [ -n "${MALLOC_ARENA_MAX+set}" ] || export MALLOC_ARENA_MAX=2 ;;
  esac
}

# The application class-data archive (AppCDS) of the edge agent: the JDK's classes and the
# agent's, pre-parsed and laid out as they are in memory, mapped from one file at start instead of
# read from the jars and the JDK image (measured, docs/perf/edge.md: about 1 s less CPU to
# registered, 3-4 MiB less RSS). Prints the flags that use it, or nothing.
# Usage: ql3_cds_flags JAVA JAVA_MAJOR CLASSPATH CLASSLIST DIR CREATE PROFILE_FLAGS...
#   CREATE yes: create the archive when it is missing or stale; no: only use a valid one.
# - Only for JDK 17 (the production target; a static archive from a class list is how JDK 17 can
#   build one without a training run); QL3_CDS=off disables it; DIR empty: no archive.
# - Created by the launcher itself when missing or stale: `java -Xshare:dump` from CLASSLIST (the
#   classes a training session loaded, shipped with the program), once, a few seconds of CPU and
#   ~180 MiB of RSS for that one process, then checked with -Xshare:on (which refuses to start on
#   an archive it cannot map or whose class path does not match) and written back to the disk
#   (`sync FILE`) before it is renamed into place: until the kernel writes them back, the pages of a
#   file just written are dirty in the page cache, and the first agent to map them had them counted
#   as its private dirty memory (measured: 42.2 MiB after register, 24.4 after a `sync`).
# - A damaged archive crashes the JVM at start (measured: SIGSEGV for 64 KiB of noise in the middle,
#   SIGBUS for a truncated file), so its checksum (`cksum`, CRC and size) is recorded beside it
#   (.cksum) once it passed the checks, and compared at every start (~30-50 ms of wall time, a few
#   ms of CPU for 31 MiB here, and in the launcher's process, not the agent's). The JVM's own
#   check, -XX:+VerifySharedSpaces at every start, was measured at +1.0 MiB of the agent's RSS
#   (it reads every page of the mapping), so it is used only for the check after the dump.
# - Stale means another archive key: the key is a checksum of the name, size and mtime of the JVM's
#   libjvm.so and modules image (a JDK update changes both), of the class list and of every jar of
#   CLASSPATH, and of the flags. So a JDK or package upgrade makes a new archive; the old ones are
#   removed. A class list rewritten in place with the same size and mtime is not seen: a stale list
#   only makes the archive cover fewer classes.
# - Mapped where it was dumped (-XX:ArchiveRelocationMode=0, a diagnostic flag in JDK 17, hence
#   UnlockDiagnosticVMOptions): this JDK relocates archives by default (mode 1, for ASLR), which
#   rewrites every pointer of the 31 MiB archive at start, so all of it becomes private dirty memory
#   that the kernel can never reclaim. Mapped as dumped, its read-only part stays clean, file-backed
#   and shared (measured, docs/perf/edge.md: private dirty -14 MiB, PSS -4 MiB; RSS about the same,
#   since the agent reads those pages). The trade: the class metadata sits at a fixed address
#   (0x800000000), as it did by default before; with -Xmx16m the heap is at a fixed low address
#   anyway (zero-based compressed oops). Opt out: QL3_JAVA_OPTS="-XX:ArchiveRelocationMode=1".
# - Never breaks start: a failed dump or check, an unwritable DIR, an archive not owned by this
#   user or whose checksum is not the one recorded when it was checked: no archive flags (the
#   JDK's default CDS). With -Xshare:auto the JVM itself starts without it if it still cannot use
#   it (another JVM build: a warning on stdout, measured with a JDK 17 archive under JDK 25).
ql3_cds_mapping="-XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0"
ql3_cds_flags() {
  _java=$1 _major=$2 _cp=$3 _list=$4 _dir=$5 _create=$6
  shift 6
  [ "${QL3_CDS:-auto}" != off ] && [ "$_major" = 17 ] && [ -n "$_dir" ] && [ -r "$_list" ] || return 0
  ql3_home_of "$_java"
  _jh=$ql3_home
  # The class path's entries, a trailing * as the jars it stands for (the JVM's rule); split on ':'
  # with globbing off, then globbed.
  _jars=
  _ifs=$IFS
  set -f
  IFS=:
  for _e in $_cp; do
    case "$_e" in *'*') _e=$_e.jar ;; esac
    _jars="$_jars $_e"
  done
  IFS=$_ifs
  set +f
  # shellcheck disable=SC2086
  _key=$({ stat -L -c '%n %s %Y' "$_jh/lib/server/libjvm.so" "$_jh/lib/modules" "$_list" $_jars || :
           printf '%s\n' "$*"; } 2>/dev/null | cksum)
  _key=${_key%% *}
  _f=$_dir/agent-$_key.jsa
  _sum=
  [ -f "$_f.cksum" ] && read -r _sum < "$_f.cksum" || :
  if [ -f "$_f" ] && [ -O "$_f" ] && [ -n "$_sum" ] && [ "$(cksum < "$_f")" = "$_sum" ]; then
    printf '%s\n' "-XX:SharedArchiveFile=$_f -Xshare:auto $ql3_cds_mapping"
    return 0
  fi
  [ "$_create" = yes ] || return 0
  { [ -d "$_dir" ] || mkdir -p -m 0700 "$_dir"; } 2>/dev/null || return 0
  [ -O "$_dir" ] && [ -w "$_dir" ] || return 0
  _tmp=$_dir/.agent-$_key.$$.jsa
  printf 'ql3-worker: creating the class-data archive %s (once per JDK and version)\n' "$_f" >&2
  # shellcheck disable=SC2086
  if "$_java" "$@" -XX:+VerifySharedSpaces -Xshare:dump -XX:SharedClassListFile="$_list" \
       -XX:SharedArchiveFile="$_tmp" -cp "$_cp" > "$_dir/dump.log" 2>&1 \
     && "$_java" "$@" -XX:+VerifySharedSpaces -Xshare:on -XX:SharedArchiveFile="$_tmp" $ql3_cds_mapping \
       -cp "$_cp" -version \
       > /dev/null 2>&1 \
     && { sync "$_tmp" 2>/dev/null || :; } \
     && cksum < "$_tmp" > "$_tmp.cksum" && mv -f "$_tmp.cksum" "$_f.cksum" && mv -f "$_tmp" "$_f"; then
    for _o in "$_dir"/agent-*.jsa; do
      [ "$_o" = "$_f" ] || rm -f "$_o" "$_o.cksum"
    done
    printf '%s\n' "-XX:SharedArchiveFile=$_f -Xshare:auto $ql3_cds_mapping"
  else
    rm -f "$_tmp" "$_tmp.cksum"
    printf 'ql3-worker: could not create the class-data archive (see %s); starting without it\n' "$_dir/dump.log" >&2
  fi
}
