package io.ql3.worker.runtime.isolation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * How {@code execution.run-user} / {@code run-group} become the run accounts, against passwd and
 * group listings (the host's own name service is read in the last test).
 */
class RunAsTest {

  private static final String PASSWD =
      "root:x:0:0:root:/root:/bin/bash\n"
          + "ql3-run:x:70000:70000:ql3-worker runs:/:/usr/sbin/nologin\n"
          + "other-run:x:80000:100:x:/:/usr/sbin/nologin\n"
          + "next:x:80002:80002:x:/:/usr/sbin/nologin\n";
  private static final String GROUP =
      "root:x:0:\nusers:x:100:\nql3-run:x:70000:\nrunners:x:90000:\nneighbour:x:90001:\n";

  private static final AccountLookup NAMES =
      new AccountLookup() {
        @Override
        public List<String> usersIn(long first, long last) {
          return AccountLookup.inRange(PASSWD, first, last);
        }

        @Override
        public List<String> groupsIn(long first, long last) {
          return AccountLookup.inRange(GROUP, first, last);
        }

        @Override
        public Optional<RunAccount> user(String name) {
          return AccountLookup.userIn(PASSWD, name);
        }

        @Override
        public OptionalLong group(String name) {
          return AccountLookup.groupIn(GROUP, name);
        }
      };

  @Test
  void theDefaultRunAccountIsSlotZeroAndTheNextSlotsAreTheIdsAfterIt() throws Exception {
    RunAccounts a = RunAs.defaults().resolve(4, NAMES);
    assertThat(a.toString()).isEqualTo("uids 70000-70003");
    assertThat(a.acquire()).contains(new RunAccount(70_000, 70_000));
    assertThat(a.acquire()).contains(new RunAccount(70_001, 70_001));
  }

  @Test
  void aNamedUserBringsItsPrimaryGroupAndANamedGroupReplacesIt() throws Exception {
    RunAccounts byPrimary = new RunAs("other-run", Optional.empty()).resolve(2, NAMES);
    assertThat(byPrimary.toString()).isEqualTo("uids 80000-80001, gids 100-101");
    RunAccounts byGroup = new RunAs("other-run", Optional.of("runners")).resolve(1, NAMES);
    assertThat(byGroup.acquire()).contains(new RunAccount(80_000, 90_000));
    RunAccounts numeric = new RunAs("75000", Optional.of("76000")).resolve(2, NAMES);
    assertThat(numeric.acquire()).contains(new RunAccount(75_000, 76_000));
  }

  @Test
  void aRangeWhoseOtherIdsANamedAccountHoldsIsRefusedNamingIt() {
    assertThatThrownBy(() -> new RunAs("other-run", Optional.empty()).resolve(3, NAMES))
        .isInstanceOf(IsolationParts.Missing.class)
        .hasMessageContaining("next(80002)");
    assertThatThrownBy(() -> new RunAs("other-run", Optional.of("runners")).resolve(2, NAMES))
        .hasMessageContaining("neighbour(90001)")
        .hasMessageNotContaining("runners(90000)");
    // a numeric user whose number a named group holds: not "its" group
    assertThatThrownBy(() -> new RunAs("90000", Optional.empty()).resolve(1, NAMES))
        .hasMessageContaining("runners(90000)");
    assertThatThrownBy(() -> new RunAs("70000", Optional.empty()).resolve(1, NAMES))
        .hasMessageContaining("ql3-run(70000)");
  }

  @Test
  void aMissingAccountOrRootIsRefusedWithTheRemedy() {
    assertThatThrownBy(() -> new RunAs("nobody-here", Optional.empty()).resolve(1, NAMES))
        .isInstanceOf(IsolationParts.Missing.class)
        .hasMessageContaining("run user nobody-here does not exist")
        .hasMessageContaining("sysusers");
    assertThatThrownBy(() -> new RunAs("ql3-run", Optional.of("no-group")).resolve(1, NAMES))
        .hasMessageContaining("run group no-group does not exist");
    assertThatThrownBy(() -> new RunAs("root", Optional.empty()).resolve(1, NAMES))
        .hasMessageContaining("is root");
    assertThatThrownBy(() -> new RunAs("ql3-run", Optional.of("root")).resolve(1, NAMES))
        .hasMessageContaining("is root");
  }

  @Test
  void namesThatAreNeitherNumbersNorAccountNamesAreRefusedAtConfiguration() {
    for (String bad : new String[] {"", "a b", "x:y", "999", "-rf"}) {
      assertThatThrownBy(() -> new RunAs(bad, Optional.empty()))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("run-user");
    }
  }

  @Test
  void theHostsNameServiceAnswersByName() throws Exception {
    AccountLookup host = AccountLookup.system();
    assertThat(host.user("root")).contains(new RunAccount(0, 0));
    assertThat(host.group("root")).hasValue(0);
    assertThat(host.user("no-such-user-ql3")).isEmpty();
    assertThat(host.group("no-such-group-ql3")).isEmpty();
  }
}
