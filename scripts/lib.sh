# shellcheck shell=sh
# Shared by scripts/*: pick the JDK explicitly and check the tools, never relying on luck.

die() { printf '%s\n' "$*" >&2; exit 1; }

# Sets JAVA_HOME (if unset, from the `java` on the PATH) and checks it is JDK 17 or newer.
select_jdk() {
  if [ -n "${JAVA_HOME:-}" ]; then
    [ -x "$JAVA_HOME/bin/java" ] || die "JAVA_HOME=$JAVA_HOME has no bin/java; point it at a JDK 17 or newer."
  else
    command -v java >/dev/null 2>&1 || die "No java found: install a JDK 17 or newer, or set JAVA_HOME."
    JAVA_HOME=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')
    [ -n "$JAVA_HOME" ] || die "Could not read java.home from the java on the PATH; set JAVA_HOME."
  fi
  export JAVA_HOME
  [ -x "$JAVA_HOME/bin/javac" ] || die "$JAVA_HOME is a JRE without javac; building needs a JDK 17 or newer (set JAVA_HOME)."
  java_major=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java.specification.version = //p' | sed 's/^1\.//')
  case "$java_major" in
    ''|*[!0-9]*) die "Could not tell the Java version of $JAVA_HOME." ;;
  esac
  [ "$java_major" -ge 17 ] || die "Java $java_major at $JAVA_HOME is too old: ql3-worker needs JDK 17 or newer (set JAVA_HOME)."
}

require_maven() {
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is missing: install Apache Maven 3.8 or newer (Debian: apt-get install maven)."
}
