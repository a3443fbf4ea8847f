# shellcheck shell=sh
# Shared by scripts/*: pick the JDK explicitly and check the tools, never relying on luck.

die() { printf '%s\n' "$*" >&2; exit 1; }

# The launchers' shared rules (the runtime's version among them), from the checkout this file is in:
# its callers run from the checkout's root, or set ql3_root to it.
. "${ql3_root:-.}/scripts/jvm-flags.sh"

# Sets JAVA_HOME (if unset, from the `java` on the PATH) and checks it is JDK 17 or newer.
select_jdk() {
  if [ -n "${JAVA_HOME:-}" ]; then
    [ -x "$JAVA_HOME/bin/java" ] || die "JAVA_HOME=$JAVA_HOME has no bin/java; point it at a JDK 17 or newer."
  else
    _java=$(command -v java 2>/dev/null) || die "No java found: install a JDK 17 or newer, or set JAVA_HOME."
    JAVA_HOME=$(readlink -f "$_java")
    JAVA_HOME=${JAVA_HOME%/bin/*}
    if [ ! -x "$JAVA_HOME/bin/java" ] || [ ! -r "$JAVA_HOME/release" ]; then
      # Not a JDK's own bin/java (a wrapper script, an asdf or jenv shim): ask it (one JVM start).
      JAVA_HOME=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')
      [ -n "$JAVA_HOME" ] || die "Could not read java.home from the java on the PATH; set JAVA_HOME."
    fi
  fi
  export JAVA_HOME
  [ -x "$JAVA_HOME/bin/javac" ] || die "$JAVA_HOME is a JRE without javac; building needs a JDK 17 or newer (set JAVA_HOME)."
  java_major_of "$JAVA_HOME"
  [ "$java_major" -ge 17 ] || die "Java $java_major at $JAVA_HOME is too old: ql3-worker needs JDK 17 or newer (set JAVA_HOME)."
}

# Sets java_major to the Java version of the runtime at $1 (a JDK or a jlink image), read as the
# launchers read it (ql3_java_major, scripts/jvm-flags.sh), or dies.
java_major_of() { # HOME
  ql3_java_major "$1"
  java_major=$ql3_major
  [ -n "$java_major" ] || die "Could not tell the Java version of $1."
}

require_maven() {
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is missing: install Apache Maven 3.8 or newer (Debian: apt-get install maven)."
}

# Waits for `ql3-control-plane serve` (pid $1, output in $2) to report its ports; sets the
# variables `ingress` (HOST:PORT) and `admin` (PORT). Used by the quickstart and the benchmarks.
await_control_plane() {
  _line=
  for _ in $(seq 1 600); do
    _line=$(grep -m1 ' serving ' "$2" 2>/dev/null || true)
    [ -n "$_line" ] && break
    kill -0 "$1" 2>/dev/null || { cat "$2" >&2; die "the control plane did not start"; }
    sleep 0.05
  done
  [ -n "$_line" ] || { cat "$2" >&2; die "the control plane did not report its ports"; }
  ingress=$(printf '%s' "$_line" | sed -n 's/.*ingress=https:\/\/\([0-9.:]*\).*/\1/p')
  admin=$(printf '%s' "$_line" | sed -n 's/.*admin=http:\/\/[0-9.]*:\([0-9]*\).*/\1/p')
}

# Writes an agent configuration FILE for WORKER against INGRESS with the credentials of a
# `dev-pki` directory PKI; TOML read from stdin is appended (the [execution] table and more).
write_agent_config() { # FILE PKI WORKER INGRESS
  mkdir -p "$(dirname "$1")"
  {
    printf 'enabled = true\n[worker]\nid = "%s"\n[ingress]\nurl = "https://%s"\n' "$3" "$4"
    printf '[credentials]\ncertificate = "%s"\nprivate-key = "%s"\ntrust = "%s"\ntoken = "%s"\n' \
      "$2/workers/$3/client.crt" "$2/workers/$3/client.key" "$2/ca.crt" "$2/workers/$3/token"
    printf '[journal]\ndir = "journal"\n'
    cat
  } > "$1"
}
