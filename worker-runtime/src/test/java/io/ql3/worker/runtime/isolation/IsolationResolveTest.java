package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each mode does with what the host has, from fake {@code /proc} files and a fake name
 * service (the seam {@link IsolationHost}): no process or cgroup is touched.
 */
class IsolationResolveTest {

  @TempDir Path tmp;

  private static final RunLimits LIMITS = new RunLimits(OptionalLong.empty(), OptionalLong.empty(), 100);

  private IsolationHost host(long uid, String capEff, Map<String, Long> users, boolean cgroup2) throws Exception {
    Path status = tmp.resolve("status");
    Files.writeString(status, "Name:\tjava\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\nGid:\t" + uid
        + "\t" + uid + "\t" + uid + "\t" + uid + "\nGroups:\t" + uid + "\nCapEff:\t" + capEff + "\n");
    Path mountinfo = tmp.resolve("mountinfo");
    Files.writeString(mountinfo, cgroup2 ? "31 24 0:28 / " + tmp.resolve("nocg") + " rw - cgroup2 cgroup2 rw\n" : "");
    Path self = tmp.resolve("cgroup");
    Files.writeString(self, "0::/\n");
    AccountLookup names = new AccountLookup() {
      @Override
      public OptionalLong uid(String user) {
        return users.containsKey(user) ? OptionalLong.of(users.get(user)) : OptionalLong.empty();
      }

      @Override
      public OptionalLong primaryGid(String user) {
        return uid(user);
      }

      @Override
      public OptionalLong gid(String group) {
        return uid(group);
      }
    };
    return new IsolationHost(status, self, mountinfo, 1, Path.of("/bin/true"), Path.of("/bin/sh"),
        Path.of("/usr/bin/env"), names);
  }

  private static IsolationSettings settings(IsolationMode mode) {
    return new IsolationSettings(mode, "ql3-run", "ql3-run", LIMITS);
  }

  @Test
  void requiredNamesEveryMissingPart() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of(), false);
    assertThatThrownBy(() -> Isolation.resolve(settings(IsolationMode.REQUIRED), h, tmp.resolve("w"), "r"))
        .isInstanceOf(IsolationException.class)
        .satisfies(e -> assertThat(((IsolationException) e).missing())
            .anySatisfy(m -> assertThat(m).startsWith("user_switch: run user 'ql3-run' does not exist"))
            .anySatisfy(m -> assertThat(m).startsWith("cgroup: no cgroup v2 hierarchy is mounted")));
  }

  @Test
  void aNonRootAgentWithoutTheCapabilitiesCannotSwitch() throws Exception {
    IsolationHost h = host(998, "0000000000000000", Map.of("ql3-run", 999L), false);
    assertThatThrownBy(() -> Isolation.resolve(settings(IsolationMode.REQUIRED), h, tmp.resolve("w"), "r"))
        .satisfies(e -> assertThat(((IsolationException) e).missing())
            .anySatisfy(m -> assertThat(m).contains("lacks CAP_SETUID CAP_SETGID CAP_SETPCAP CAP_KILL")));
  }

  @Test
  void aRunAccountThatIsRootOrTheAgentIsRefused() throws Exception {
    IsolationHost rootRun = host(998, "00000000000001e0", Map.of("ql3-run", 0L), false);
    Isolation a = Isolation.resolve(settings(IsolationMode.AUTO), rootRun, tmp.resolve("w"), "r");
    assertThat(a.account()).isEmpty();
    assertThat(a.inactive().get("user_switch")).contains("is root");

    IsolationHost sameUser = host(998, "00000000000001e0", Map.of("ql3-run", 998L), false);
    Isolation b = Isolation.resolve(settings(IsolationMode.AUTO), sameUser, tmp.resolve("w"), "r");
    assertThat(b.inactive().get("user_switch")).contains("the agent's own user");
  }

  @Test
  void autoUsesWhatIsThereAndSaysWhatIsNot() throws Exception {
    // CapEff 0x1e0 = CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP; agent in group 998 = run group? no:
    IsolationHost h = host(998, "00000000000001e0", Map.of("ql3-run", 998L + 1), false);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(iso.account()).isEmpty();
    assertThat(iso.inactive().get("user_switch")).contains("not a member of the run group");
    assertThat(iso.describe()).containsEntry("mode", "auto").containsEntry("user_switch", "no").containsEntry("cgroup", "no");
    assertThat(iso.parts()).containsEntry("user_switch", false).containsEntry("cgroup", false);
  }

  @Test
  void theCommandEndsEveryHelpersOptionsBeforeTheRunsArgvAndCarriesTheRunsEnvironmentToItAlone() throws Exception {
    IsolationHost h = host(0, "000001ffffffffff", Map.of("ql3-run", 999L), false);
    Files.setAttribute(tmp, "unix:mode", 0711);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    assertThat(iso.account()).isPresent();
    List<String> c = iso.command(java.util.Optional.empty(), Path.of("/usr/bin/setsid"), List.of("-f", "--x"),
        new java.util.TreeMap<>(Map.of("LD_PRELOAD", "/x.so", "A", "b=c")));
    assertThat(c).containsSubsequence("/usr/bin/setsid", "--", "/bin/true", "--reuid=999", "--regid=999",
        "--clear-groups", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
        "/usr/bin/env", "-i", "A=b=c", "LD_PRELOAD=/x.so", "-f", "--x");
    assertThat(c.subList(c.size() - 2, c.size())).containsExactly("-f", "--x");
    assertThat(Isolation.HELPER_ENVIRONMENT).containsOnlyKeys("PATH", "LANG");
  }

  @Test
  void withoutARunAccountPrivilegesAreStillDroppedBeforeTheRun() throws Exception {
    IsolationHost h = host(998, "00000000000001e0", Map.of(), false);
    Isolation iso = Isolation.resolve(settings(IsolationMode.AUTO), h, tmp.resolve("w"), "r");
    List<String> c = iso.command(java.util.Optional.empty(), Path.of("/usr/bin/setsid"), List.of("prog"), Map.of());
    assertThat(c).containsExactly("/usr/bin/setsid", "--", "/bin/true", "--inh-caps=-all", "--ambient-caps=-all",
        "--bounding-set=-all", "--no-new-privs", "--", "/usr/bin/env", "-i", "prog");
    assertThatThrownBy(() -> iso.command(java.util.Optional.empty(), Path.of("/usr/bin/setsid"), List.of("a=b"), Map.of()))
        .hasMessageContaining("contains '='");
  }
}
