package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each mode does with what the host has, from fake {@code /proc} files and a fake name service
 * (the seam {@link IsolationHost}): no process or cgroup is touched.
 */
class IsolationResolveTest {

  @TempDir Path tmp;

  private static final RunLimits LIMITS =
      new RunLimits(OptionalLong.empty(), OptionalLong.empty(), 100);

  /** Named accounts: name → id, as both a user and a group. */
  private IsolationHost host(long uid, String capEff, Map<String, Long> named, boolean cgroup2)
      throws Exception {
    Path status = tmp.resolve("status");
    Files.writeString(
        status,
        "Name:\tjava\nUid:\t"
            + uid
            + "\t"
            + uid
            + "\t"
            + uid
            + "\t"
            + uid
            + "\nGid:\t"
            + uid
            + "\t"
            + uid
            + "\t"
            + uid
            + "\t"
            + uid
            + "\nGroups:\t"
            + uid
            + "\nCapEff:\t"
            + capEff
            + "\n");
    Path mountinfo = tmp.resolve("mountinfo");
    Files.writeString(
        mountinfo,
        cgroup2 ? "31 24 0:28 / " + tmp.resolve("nocg") + " rw - cgroup2 cgroup2 rw\n" : "");
    Path self = tmp.resolve("cgroup");
    Files.writeString(self, "0::/\n");
    StringBuilder listing = new StringBuilder();
    named.forEach(
        (n, id) ->
            listing
                .append(n)
                .append(":x:")
                .append(id)
                .append(":")
                .append(id)
                .append("::/:/bin/sh\n"));
    AccountLookup names =
        new AccountLookup() {
          @Override
          public List<String> usersIn(long first, long last) {
            return AccountLookup.inRange(listing.toString(), first, last);
          }

          @Override
          public List<String> groupsIn(long first, long last) {
            return List.of();
          }

          @Override
          public Optional<RunAccount> user(String name) {
            return AccountLookup.userIn(listing.toString(), name);
          }

          @Override
          public OptionalLong group(String name) {
            return OptionalLong.empty();
          }
        };
    Path proc = Files.createDirectories(tmp.resolve("proc"));
    return new IsolationHost(
        status,
        self,
        mountinfo,
        1,
        Path.of("/bin/true"),
        Path.of("/bin/sh"),
        Path.of("/usr/bin/env"),
        names,
        proc,
        List.of());
  }

  private static IsolationSettings settings(IsolationMode mode) {
    return new IsolationSettings(mode, new RunAs("70000", Optional.empty()), 4, LIMITS);
  }

  @Test
  void requiredNamesEveryMissingPart() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of("someone", 70_002L), false);
    assertThatThrownBy(
            () -> Isolation.resolve(settings(IsolationMode.REQUIRED), h, tmp.resolve("w"), "r"))
        .isInstanceOf(IsolationException.class)
        .satisfies(
            e ->
                assertThat(((IsolationException) e).missing())
                    .anySatisfy(
                        m ->
                            assertThat(m)
                                .startsWith("user_switch: run uids 70000-70003")
                                .contains("someone(70002)"))
                    .anySatisfy(
                        m ->
                            assertThat(m).startsWith("cgroup: no cgroup v2 hierarchy is mounted")));
  }

  @Test
  void aNonRootAgentWithoutTheCapabilitiesCannotSwitch() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of(), false);
    assertThatThrownBy(
            () -> Isolation.resolve(settings(IsolationMode.REQUIRED), h, tmp.resolve("w"), "r"))
        .satisfies(
            e ->
                assertThat(((IsolationException) e).missing())
                    .anySatisfy(
                        m ->
                            assertThat(m)
                                .contains("lacks CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL")));
  }

  @Test
  void aRangeHoldingTheAgentOrARunningProcessIsRefused() throws Exception {
    IsolationHost agentInside = host(70_001, "00000000000001e0", Map.of(), false);
    Isolation a =
        Isolation.resolve(settings(IsolationMode.AUTO), agentInside, tmp.resolve("w"), "r");
    assertThat(a.accounts()).isEmpty();
    assertThat(a.inactive().get("user_switch")).contains("the agent's own uid 70001");

    IsolationHost h = host(998, "00000000000001e0", Map.of(), false);
    Path busy = Files.createDirectories(h.proc().resolve("4242"));
    Files.writeString(busy.resolve("stat"), "4242 (sleep) S 1 4242 4242 0 -1\n");
    Files.writeString(busy.resolve("comm"), "sleep\n");
    Path zombie = Files.createDirectories(h.proc().resolve("4243"));
    Files.writeString(zombie.resolve("stat"), "4243 (a (b) c) Z 1 4243 4243 0 -1\n");
    for (Path p : List.of(busy, zombie)) {
      Files.setAttribute(p, "unix:uid", 70_003);
    }
    Isolation b = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(b.inactive().get("user_switch")).contains("are in use: pid 4242 (uid 70003, sleep)");
    Files.writeString(busy.resolve("stat"), "4242 (sleep) Z 1 4242 4242 0 -1\n");
    Files.setAttribute(tmp, "unix:mode", 0711);
    Isolation c = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(c.accounts()).as("zombies hold no uid: %s", c.inactive()).isPresent();
  }

  @Test
  void autoUsesWhatIsThereAndSaysWhatIsNot() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of(), false);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(iso.accounts()).isEmpty();
    assertThat(iso.inactive().get("user_switch")).contains("lacks CAP_SETUID");
    assertThat(iso.describe())
        .containsEntry("mode", "auto")
        .containsEntry("user_switch", "no")
        .containsEntry("cgroup", "no");
    assertThat(iso.parts()).containsEntry("user_switch", false).containsEntry("cgroup", false);
  }

  @Test
  void concurrentRunsHoldDifferentAccountsAndAFreedOneIsReused() throws Exception {
    IsolationHost h = host(998, "00000000000001e0", Map.of(), false);
    Files.setAttribute(tmp, "unix:mode", 0711);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(iso.describe()).containsEntry("user_switch", "uids 70000-70003");
    List<RunAccount> held = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      held.add(iso.acquireAccount().orElseThrow());
    }
    assertThat(held)
        .extracting(RunAccount::uid)
        .containsExactly(70_000L, 70_001L, 70_002L, 70_003L);
    assertThat(held).allSatisfy(a -> assertThat(a.gid()).isEqualTo(a.uid()));
    assertThatThrownBy(iso::acquireAccount).hasMessageContaining("no free run account");
    iso.releaseAccount(held.get(2));
    assertThat(iso.acquireAccount()).contains(new RunAccount(70_002, 70_002));
    iso.retireAccount(held.get(0));
    iso.releaseAccount(held.get(2));
    assertThat(iso.acquireAccount())
        .contains(new RunAccount(70_002, 70_002)); // 70000 retired for good
  }

  @Test
  void theCommandEndsEveryHelpersOptionsBeforeTheRunsArgvAndCarriesTheRunsEnvironmentToItAlone()
      throws Exception {
    IsolationHost h = host(0, "000001ffffffffff", Map.of(), false);
    Files.setAttribute(tmp, "unix:mode", 0711);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(iso.accounts()).isPresent();
    Optional<RunAccount> account = iso.acquireAccount();
    List<String> c =
        iso.command(
            Optional.empty(),
            account,
            Path.of("/usr/bin/setsid"),
            Path.of("/w/runs/r@1"),
            "a/b",
            List.of("-f", "--x"),
            new java.util.TreeMap<>(Map.of("LD_PRELOAD", "/x.so", "A", "b=c")));
    assertThat(c)
        .containsSubsequence(
            "/usr/bin/setsid",
            "--",
            "/bin/true",
            "--reuid=70000",
            "--regid=70000",
            "--clear-groups",
            "--inh-caps=-all",
            "--ambient-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            "/bin/sh",
            "-c",
            "/w/runs/r@1",
            "a/b",
            "/usr/bin/env",
            "-i",
            "A=b=c",
            "LD_PRELOAD=/x.so",
            "-f",
            "--x");
    assertThat(c.subList(c.size() - 2, c.size())).containsExactly("-f", "--x");
    assertThat(Isolation.HELPER_ENVIRONMENT).containsOnlyKeys("PATH", "LANG");
  }

  @Test
  void withoutARunAccountPrivilegesAreStillDroppedBeforeTheRun() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of(), false);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    List<String> c =
        iso.command(
            Optional.empty(),
            Optional.empty(),
            Path.of("/usr/bin/setsid"),
            Path.of("/w"),
            null,
            List.of("prog"),
            Map.of());
    assertThat(c)
        .containsExactly(
            "/usr/bin/setsid",
            "--",
            "/bin/true",
            "--inh-caps=-all",
            "--ambient-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            "/usr/bin/env",
            "-i",
            "prog");
    assertThatThrownBy(
            () ->
                iso.command(
                    Optional.empty(),
                    Optional.empty(),
                    Path.of("/usr/bin/setsid"),
                    Path.of("/w"),
                    null,
                    List.of("a=b"),
                    Map.of()))
        .hasMessageContaining("contains '='");
  }
}
