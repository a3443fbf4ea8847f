package io.ql3.worker.cli.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ql3.worker.runtime.config.AgentConfig;
import io.ql3.worker.runtime.config.AgentProfile;
import io.ql3.worker.runtime.config.ConfigException;
import io.ql3.worker.runtime.config.ConfigReader;
import io.ql3.worker.runtime.isolation.RunAs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

public class TomlConfigLoaderTest {
  /** A whole, valid configuration (edge worker edge-0001, paths beside the file). */
  public static final String MINIMAL =
      """
      enabled = true
      [worker]
      id = "edge-0001"
      [ingress]
      url = "https://127.0.0.1:8443"
      [credentials]
      certificate = "client.crt"
      private-key = "client.key"
      trust = "ca.crt"
      token = "token"
      [journal]
      dir = "journal"
      [execution]
      work-dir = "runs"
      max-concurrent-runs = 2
      executors = ["process"]
      [status]
      file = "status.json"
      """;

  @TempDir Path dir;
  final TomlConfigLoader loader = new TomlConfigLoader();

  private Path write(String text) throws IOException {
    Path f = dir.resolve("agent.toml");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  private AgentConfig loadEnabled(String text, AgentProfile profile) throws Exception {
    ConfigReader.Result r = loader.load(write(text), profile);
    assertThat(r).isInstanceOf(ConfigReader.Enabled.class);
    return ((ConfigReader.Enabled) r).config();
  }

  private ConfigException refused(String text, AgentProfile profile) {
    return (ConfigException)
        org.assertj.core.api.Assertions.catchThrowable(() -> loader.load(write(text), profile));
  }

  @Test
  void minimalFileLoadsWithProfileDefaultsAndPathsResolvedAgainstItsDirectory() throws Exception {
    AgentConfig c = loadEnabled(MINIMAL, AgentProfile.EDGE);
    assertThat(c.workerId()).isEqualTo("edge-0001");
    assertThat(c.ingress().host()).isEqualTo("127.0.0.1");
    assertThat(c.ingress().port()).isEqualTo(8443);
    assertThat(c.credentials().certificate()).isEqualTo(dir.resolve("client.crt"));
    assertThat(c.credentials().privateKey()).isEqualTo(dir.resolve("client.key"));
    assertThat(c.journal().dir()).isEqualTo(dir.resolve("journal"));
    assertThat(c.journal().freeSpaceFloorBytes()).isEqualTo(64L * 1024 * 1024);
    assertThat(c.execution().workDir()).isEqualTo(dir.resolve("runs"));
    assertThat(c.execution().maxConcurrentRuns()).isEqualTo(2);
    assertThat(c.execution().pullPage()).isEqualTo(1);
    assertThat(c.execution().executors()).containsExactly("process");
    assertThat(c.cadence()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.statusFile()).contains(dir.resolve("status.json"));
    assertThat(c.metricsFile()).isEmpty();
  }

  @Test
  void nodeProfileGivesItsOwnDefaults() throws Exception {
    AgentConfig c =
        loadEnabled(MINIMAL.replace("max-concurrent-runs = 2\n", ""), AgentProfile.NODE);
    assertThat(c.execution().maxConcurrentRuns()).isEqualTo(16);
    assertThat(c.execution().pullPage()).isEqualTo(8);
    assertThat(c.cadence()).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void disabledStopsBeforeAnythingElseIsRead() throws Exception {
    ConfigReader.Result r =
        loader.load(write("enabled = false\n[credentials]\nnonsense = 1\n"), AgentProfile.EDGE);
    assertThat(r).isInstanceOf(ConfigReader.Disabled.class);
  }

  @Test
  void enabledIsRequired() {
    ConfigException e = refused("[worker]\nid = \"a\"\n", AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("enabled");
    assertThat(e.getMessage()).contains("agent.toml").contains("enabled").contains("missing");
  }

  @Test
  void unknownKeyIsRefusedByItsDottedName() {
    ConfigException e =
        refused(
            MINIMAL.replace("max-concurrent-runs = 2", "max-concurent-runs = 2"),
            AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("execution.max-concurent-runs");
    assertThat(e.getMessage()).contains("unknown key");
  }

  @Test
  void unknownTableIsRefused() {
    ConfigException e = refused(MINIMAL + "[extra]\nx = 1\n", AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("extra");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "max-concurrent-runs = 2|max-concurrent-runs = 9|execution.max-concurrent-runs|1..8 for profile edge",
        "max-concurrent-runs = 2|max-concurrent-runs = 0|execution.max-concurrent-runs|1..8",
        "max-concurrent-runs = 2|max-concurrent-runs = \"2\"|execution.max-concurrent-runs|must be an integer",
        "max-concurrent-runs = 2|max-concurrent-runs = 2.0|execution.max-concurrent-runs|must be an integer",
        "id = \"edge-0001\"|id = \"Edge_1\"|worker.id|not a valid worker id",
        "url = \"https://127.0.0.1:8443\"|url = \"http://127.0.0.1:8443\"|ingress.url|https://",
        "url = \"https://127.0.0.1:8443\"|url = \"https://127.0.0.1:8443/ql3w\"|ingress.url|scheme://host",
        "executors = [\"process\"]|executors = [\"process\", \"process\"]|execution.executors|listed twice",
        "executors = [\"process\"]|executors = []|execution.executors|at least one",
        "executors = [\"process\"]|executors = [\"Proc\"]|execution.executors|not a valid executor name",
        "dir = \"journal\"|dir = \"\"|journal.dir|non-empty path",
      })
  void badValuesAreRefusedNamingTheKey(String from, String to, String key, String message) {
    ConfigException e = refused(MINIMAL.replace(from, to), AgentProfile.EDGE);
    assertThat(e).isNotNull();
    assertThat(e.key()).isEqualTo(key);
    assertThat(e.getMessage()).contains(message);
  }

  @Test
  void missingRequiredTableIsNamed() {
    ConfigException e =
        refused(MINIMAL.replace("[journal]\ndir = \"journal\"\n", ""), AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("journal");
  }

  @Test
  void syntaxErrorsCarryALine() {
    ConfigException e = refused(MINIMAL.replace("[worker]", "[worker"), AgentProfile.EDGE);
    assertThat(e.getMessage()).contains("invalid TOML").contains("line");
  }

  @Test
  void labelsAreCheckedAgainstTheContractRules() throws Exception {
    String ok =
        MINIMAL.replace(
            "[ingress]",
            "[worker.labels]\nrack = \"r12\"\n\"ql3.io/site\" = \"plant-07\"\n[ingress]");
    AgentConfig c = loadEnabled(ok, AgentProfile.EDGE);
    assertThat(c.labels()).isEqualTo(Map.of("rack", "r12", "ql3.io/site", "plant-07"));

    ConfigException badKey =
        refused(
            MINIMAL.replace("[ingress]", "[worker.labels]\nRack = \"r12\"\n[ingress]"),
            AgentProfile.EDGE);
    assertThat(badKey.key()).isEqualTo("worker.labels.Rack");

    String longValue = "é".repeat(257);
    ConfigException tooLong =
        refused(
            MINIMAL.replace(
                "[ingress]", "[worker.labels]\nrack = \"" + longValue + "\"\n[ingress]"),
            AgentProfile.EDGE);
    assertThat(tooLong.getMessage()).contains("longer than 256");
  }

  @Test
  void permanentExitCodesAreBounded() throws Exception {
    AgentConfig c =
        loadEnabled(
            MINIMAL.replace(
                "executors = [\"process\"]",
                "executors = [\"process\"]\npermanent-exit-codes = [2, 64]"),
            AgentProfile.EDGE);
    assertThat(c.execution().permanentExitCodes()).containsExactlyInAnyOrder(2, 64);
    ConfigException e =
        refused(
            MINIMAL.replace(
                "executors = [\"process\"]",
                "executors = [\"process\"]\npermanent-exit-codes = [0]"),
            AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("execution.permanent-exit-codes");
  }

  @Test
  void runsExecuteAsQl3RunByDefaultOrTheConfiguredUserAndGroupAndTheOldUidBaseIsRefused()
      throws Exception {
    String slots =
        MINIMAL
            .replaceAll("max-concurrent-runs = [0-9]+\n", "")
            .replace(
                "executors = [\"process\"]", "executors = [\"process\"]\nmax-concurrent-runs = 3");
    AgentConfig d = loadEnabled(slots, AgentProfile.EDGE);
    assertThat(d.execution().isolation().runAs()).isEqualTo(RunAs.defaults());
    assertThat(d.execution().isolation().runAs().user()).isEqualTo("ql3-run");
    assertThat(d.execution().isolation().runAccounts()).isEqualTo(3);
    AgentConfig c =
        loadEnabled(
            slots.replace(
                "max-concurrent-runs = 3",
                "max-concurrent-runs = 3\nrun-user = 200000\nrun-group = \"runners\""),
            AgentProfile.EDGE);
    assertThat(c.execution().isolation().runAs())
        .isEqualTo(new RunAs("200000", Optional.of("runners")));
    for (String bad :
        new String[] {
          "run-user = 999", "run-user = 2147483646", "run-user = \"no such:name\"", "run-user = []"
        }) {
      ConfigException e =
          refused(
              slots.replace("max-concurrent-runs = 3", "max-concurrent-runs = 3\n" + bad),
              AgentProfile.EDGE);
      assertThat(e.key()).as(bad).isEqualTo("execution.run-user");
    }
    ConfigException group =
        refused(
            slots.replace("max-concurrent-runs = 3", "max-concurrent-runs = 3\nrun-group = 5"),
            AgentProfile.EDGE);
    assertThat(group.key()).isEqualTo("execution.run-group");
    ConfigException old =
        refused(
            slots.replace(
                "max-concurrent-runs = 3", "max-concurrent-runs = 3\nrun-uid-base = 70000"),
            AgentProfile.EDGE);
    assertThat(old.key()).isEqualTo("execution.run-uid-base");
    assertThat(old.getMessage()).contains("run-user = <that uid>").contains("ql3-run");
  }

  @Test
  void aSignalStatusAsPermanentExitCodeIsAConfigurationErrorNotACrash() {
    ConfigException e =
        refused(
            MINIMAL.replace(
                "executors = [\"process\"]",
                "executors = [\"process\"]\npermanent-exit-codes = [130]"),
            AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("execution.permanent-exit-codes");
    assertThat(e.getMessage()).contains("killed by signal 2");
  }

  @Test
  void theProfileComesFromTheFileAndAnyGivenOneMustAgree() throws Exception {
    String edge = MINIMAL.replace("enabled = true\n", "enabled = true\nprofile = \"edge\"\n");
    assertThat(loadEnabled(edge, null).profile()).isEqualTo(AgentProfile.EDGE);
    assertThat(loadEnabled(edge, AgentProfile.EDGE).profile()).isEqualTo(AgentProfile.EDGE);
    ConfigException disagree = refused(edge, AgentProfile.NODE);
    assertThat(disagree.key()).isEqualTo("profile");
    assertThat(disagree.getMessage()).contains("is \"edge\" but --profile node was given");
    assertThat(loadEnabled(MINIMAL, AgentProfile.NODE).profile()).isEqualTo(AgentProfile.NODE);
    ConfigException none = refused(MINIMAL, null);
    assertThat(none.key()).isEqualTo("profile");
    assertThat(none.getMessage()).contains("is not set");
    assertThat(
            refused(
                    MINIMAL.replace("enabled = true\n", "enabled = true\nprofile = \"big\"\n"),
                    null)
                .key())
        .isEqualTo("profile");
  }

  @Test
  void logLevelIsOneOfFourAndInfoByDefault() throws Exception {
    assertThat(loadEnabled(MINIMAL, AgentProfile.EDGE).logLevel())
        .isEqualTo(io.ql3.worker.runtime.log.EventLog.Level.INFO);
    assertThat(loadEnabled(MINIMAL + "[log]\nlevel = \"debug\"\n", AgentProfile.EDGE).logLevel())
        .isEqualTo(io.ql3.worker.runtime.log.EventLog.Level.DEBUG);
    ConfigException e = refused(MINIMAL + "[log]\nlevel = \"verbose\"\n", AgentProfile.EDGE);
    assertThat(e.key()).isEqualTo("log.level");
  }

  @Test
  void aConfigurationWritableByOthersIsRefused() throws Exception {
    Path f = write(MINIMAL);
    Files.setPosixFilePermissions(
        f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
    assertThatThrownBy(() -> loader.load(f, AgentProfile.EDGE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("configuration file")
        .hasMessageContaining("writable by others");
    Files.setPosixFilePermissions(
        f, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(loader.load(f, AgentProfile.EDGE)).isInstanceOf(ConfigReader.Enabled.class);
  }

  @Test
  void missingAndOversizeFilesAreClearErrors() throws Exception {
    assertThatThrownBy(() -> loader.load(dir.resolve("nope.toml"), AgentProfile.EDGE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nope.toml")
        .hasMessageContaining("no such file");
    Path big = dir.resolve("big.toml");
    Files.write(
        big, ("# " + "x".repeat(1024) + "\n").repeat(1100).getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> loader.load(big, AgentProfile.EDGE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("larger than");
  }

  @Test
  void logFormatIsLogfmtOrJson() throws Exception {
    assertThat(loadEnabled(MINIMAL + "[log]\nformat = \"json\"\n", AgentProfile.EDGE).logFormat())
        .isEqualTo(AgentConfig.LogFormat.JSON);
    assertThat(refused(MINIMAL + "[log]\nformat = \"xml\"\n", AgentProfile.EDGE).key())
        .isEqualTo("log.format");
  }

  @Test
  void treeKeepsTypes() throws Exception {
    Map<String, Object> tree =
        loader.readTree(write("a = 1\nb = \"s\"\nc = true\nd = [1, 2]\n[t]\nx = 1.5\n"));
    assertThat(tree.get("a")).isEqualTo(1L);
    assertThat(tree.get("b")).isEqualTo("s");
    assertThat(tree.get("c")).isEqualTo(true);
    assertThat(tree.get("d")).isEqualTo(List.of(1L, 2L));
    assertThat(((Map<?, ?>) tree.get("t")).get("x")).isEqualTo(1.5d);
  }

  @Test
  void aFileThatIsNotUtf8IsRefusedAndALeadingByteOrderMarkIsNot() throws Exception {
    Path f = dir.resolve("agent.toml");
    byte[] latin1 =
        MINIMAL.replace("edge-0001", "edge-0001\u00e9").getBytes(StandardCharsets.ISO_8859_1);
    Files.write(f, latin1);
    int offset = MINIMAL.indexOf("edge-0001") + "edge-0001".length();
    int line = (int) MINIMAL.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    assertThatThrownBy(() -> loader.load(f, AgentProfile.EDGE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("not UTF-8 text: line " + line + ", byte " + offset + " of the file");
    Files.writeString(f, "\uFEFF" + MINIMAL, StandardCharsets.UTF_8);
    assertThat(loader.load(f, AgentProfile.EDGE)).isInstanceOf(ConfigReader.Enabled.class);
    Files.writeString(f, "\uFEFFenabled = tru\n", StandardCharsets.UTF_8);
    assertThatThrownBy(() -> loader.load(f, AgentProfile.EDGE))
        .hasMessageContaining("invalid TOML at line 1, column 11: invalid value 'tru'");
  }

  /** A URL refused for its user information is named in the error without it. */
  @Test
  void aUrlWithCredentialsIsRefusedWithoutEchoingThem() {
    String url = "url = \"https://127.0.0.1:8443\"";
    for (String[] c :
        new String[][] {
          {"url = \"https://user:s3cret@cc.example:8443\"", "url"},
          {"url = \"https://user:s3 cret@cc.example\"", "url"},
          {url + "\nproxy = \"http://user:s3cret@proxy:3128\"", "proxy"},
          {url + "\nproxy = \"http://us:s3cret@pro xy:3128\"", "proxy"},
        }) {
      ConfigException e = refused(MINIMAL.replace(url, c[0]), AgentProfile.EDGE);
      assertThat(e.key()).as(c[0]).endsWith(c[1]);
      assertThat(e.getMessage()).as(c[0]).doesNotContain("s3").contains("<credentials removed>@");
    }
  }

  @Test
  void aSyntaxErrorNamesItsLineAndColumn() {
    ConfigException e =
        refused(
            MINIMAL.replace("max-concurrent-runs = 2", "max-concurrent-runs = 02"),
            AgentProfile.EDGE);
    int line =
        (int) MINIMAL.lines().takeWhile(l -> !l.startsWith("max-concurrent-runs")).count() + 1;
    assertThat(e.getMessage())
        .contains("invalid TOML at line " + line + ", column 23")
        .contains("leading zeros");
  }
}
