#!/bin/sh
# Field-fault soak (docs/reliability.md): one agent in its own network namespace against the
# reference control plane, real process runs flowing, faults injected on a seeded schedule
# (network partitions and blackholes, a slow link, freezes, a full journal disk, control plane
# restarts and faults, agent kill -9 and restarts). Loopback and this machine's own namespaces
# only. Prints one summary table; exits 1 when an invariant broke.
#
# Usage: bench/scripts/soak.sh [--seconds N] [--seed S] [--keep]   (root; default 180 s)
# Needs a build (mvn -B -q -DskipTests package), python3, iproute2; installs nftables from
# Debian's packages when `nft` is missing (the blackhole falls back to a blackhole route).
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh
[ "$(id -u)" = 0 ] || die "soak: needs root (network namespaces, veth, tmpfs, tc)"
command -v python3 >/dev/null 2>&1 || die "soak: needs python3"
command -v ip >/dev/null 2>&1 || die "soak: needs iproute2 (apt-get install iproute2)"
if ! command -v nft >/dev/null 2>&1; then
  (apt-get install -y -q nftables >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nftables >/dev/null 2>&1; }) \
    || echo "soak: nftables could not be installed; blackholes use a blackhole route (outbound only)" >&2
fi
select_jdk
[ -f agent-cli/target/agent-cli-0.1.0-SNAPSHOT.jar ] || die "soak: build first (mvn -B -q -DskipTests package)"
exec python3 bench/scripts/soak.py "$@"
