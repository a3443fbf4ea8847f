package io.ql3.worker.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The strict reader's classification, byte by byte. */
class JsonReaderTest {

  private static ContractViolation refuse(byte[] b) {
    ContractViolation v = catchThrowableOfType(ContractViolation.class, () -> JsonReader.parse(b));
    assertThat(v).as("refused").isNotNull();
    return v;
  }

  private static byte[] hex(String... parts) {
    StringBuilder all = new StringBuilder();
    for (String p : parts) {
      all.append(p);
    }
    String s = all.toString().replace(" ", "");
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void leadingBomIsRefusedButNotInsideAString() throws Exception {
    assertThat(refuse(hex("EFBBBF", "7B7D")).reason()).isEqualTo(ViolationReason.BOM);
    assertThat(JsonReader.parse(hex("225C75464546467822")))
        .isEqualTo(new JsonValue.JsonString("\uFEFFx"));
    assertThat(JsonReader.parse(hex("22EFBBBF7822")))
        .isEqualTo(new JsonValue.JsonString("\uFEFFx"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "overlong slash C0AF, 22C0AF22",
    "overlong 3-byte E080AF, 22E080AF22",
    "overlong 4-byte F08080AF, 22F08080AF22",
    "CESU-8 high surrogate EDA080, 22EDA08022",
    "CESU-8 pair, 22EDA0BDEDB88022",
    "Latin-1 e-acute, 22E922",
    "above U+10FFFF F4908080, 22F490808022",
    "F5 lead, 22F580808022",
    "lone continuation, 228022",
    "truncated 3-byte at end, 22E282",
    "truncated 2-byte before quote, 22C222",
    "FF byte, 22FF22",
  })
  void invalidUtf8(String name, String hexBytes) {
    assertThat(refuse(hex(hexBytes)).reason()).as(name).isEqualTo(ViolationReason.NOT_UTF8);
  }

  @Test
  void validUtf8OfEveryLength() throws Exception {
    String s = "a\u00e9\u20ac\ud83d\ude80\u07ff\uffff\udbff\udfff";
    assertThat(JsonReader.parse(utf8("\"" + s + "\""))).isEqualTo(new JsonValue.JsonString(s));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"a\":1} x|TRAILING_GARBAGE",
        "{\"a\":1}}|TRAILING_GARBAGE",
        "1 2|TRAILING_GARBAGE",
        "{\"a\":1.0}|FLOAT_NUMBER",
        "{\"a\":1e2}|FLOAT_NUMBER",
        "{\"a\":1E+2}|FLOAT_NUMBER",
        "{\"a\":-0.0}|FLOAT_NUMBER",
        "{\"a\":-1}|OUT_OF_RANGE",
        "{\"a\":-0}|OUT_OF_RANGE",
        "{\"a\":9007199254740992}|OUT_OF_RANGE",
        "{\"a\":123456789012345678901234567890}|OUT_OF_RANGE",
        "{\"a\":01}|INVALID_JSON",
        "{\"a\":1.}|INVALID_JSON",
        "{\"a\":.5}|INVALID_JSON",
        "{\"a\":1e}|INVALID_JSON",
        "{\"a\":-}|INVALID_JSON",
        "{\"a\":NaN}|INVALID_JSON",
        "{\"a\":Infinity}|INVALID_JSON",
        "{\"a\":tru}|INVALID_JSON",
        "{\"a\":nul}|INVALID_JSON",
        "{'a':1}|INVALID_JSON",
        "{\"a\" 1}|INVALID_JSON",
        "{\"a\":1,}|INVALID_JSON",
        "[1,]|INVALID_JSON",
        "{\"a\":\"\\x\"}|INVALID_JSON",
        "{\"a\":\"\\u12\"}|INVALID_JSON",
        "{\"a\":\"\\u12G4\"}|INVALID_JSON",
        "\"unterminated|INVALID_JSON",
        "|INVALID_JSON",
        "   |INVALID_JSON",
        "{\"a\":1,\"a\":1}|DUPLICATE_MEMBER",
        "{\"a\":1,\"\\u0061\":2}|DUPLICATE_MEMBER",
        "{\"s\":\"\\ud800\"}|LONE_SURROGATE",
        "{\"s\":\"\\udc00x\"}|LONE_SURROGATE",
        "{\"s\":\"\\ud800\\u0041\"}|LONE_SURROGATE",
        "{\"s\":\"\\ude00\\ud83d\"}|LONE_SURROGATE",
        "{\"\\ud83d\":1}|LONE_SURROGATE",
      })
  void classification(String text, ViolationReason reason) {
    assertThat(refuse(utf8(text == null ? "" : text)).reason()).isEqualTo(reason);
  }

  @Test
  void rawControlCharactersInStringsAreInvalid() {
    for (int c = 0; c < 0x20; c++) {
      assertThat(refuse(new byte[] {'"', (byte) c, '"'}).reason())
          .isEqualTo(ViolationReason.INVALID_JSON);
    }
  }

  @Test
  void integerBoundsAndWhitespace() throws Exception {
    assertThat(JsonReader.parse(utf8(" \t\r\n9007199254740991\n ")))
        .isEqualTo(new JsonValue.JsonNumber(JsonValue.MAX_INTEGER));
    assertThat(JsonReader.parse(utf8("0"))).isEqualTo(new JsonValue.JsonNumber(0));
    // Form feed and vertical tab are not JSON whitespace.
    assertThat(refuse(utf8("\f1")).reason()).isEqualTo(ViolationReason.INVALID_JSON);
  }

  @Test
  void nestingIsBoundedAndNeverOverflowsTheStack() throws Exception {
    String ok = "[".repeat(JsonReader.MAX_DEPTH) + "]".repeat(JsonReader.MAX_DEPTH);
    assertThat(JsonReader.parse(utf8(ok))).isInstanceOf(JsonValue.JsonArray.class);
    String deep = "[".repeat(JsonReader.MAX_DEPTH + 1) + "]".repeat(JsonReader.MAX_DEPTH + 1);
    assertThat(refuse(utf8(deep)).reason()).isEqualTo(ViolationReason.INVALID_JSON);
    byte[] absurd = new byte[1 << 20];
    Arrays.fill(absurd, (byte) '[');
    assertThat(refuse(absurd).reason()).isEqualTo(ViolationReason.INVALID_JSON);
    byte[] objects = "{\"a\":".repeat(200_000).getBytes(StandardCharsets.US_ASCII);
    assertThat(refuse(objects).reason()).isEqualTo(ViolationReason.INVALID_JSON);
  }

  @Test
  void pointersLocateTheOffendingValue() {
    assertThat(refuse(utf8("{\"a\":{\"b/c\":[0,1,2.5]}}")).pointer()).isEqualTo("/a/b~1c/2");
    assertThat(refuse(utf8("{\"x\":{\"a\":1,\"a\":2}}")).pointer()).isEqualTo("/x/a");
    assertThat(refuse(utf8("{\"m~n\":\"\\ud800\"}")).pointer()).isEqualTo("/m~0n");
    assertThat(refuse(utf8("[1] 2")).pointer()).isEqualTo("");
  }

  @Test
  void escapesDecode() throws Exception {
    assertThat(JsonReader.parse(utf8("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE80\"")))
        .isEqualTo(new JsonValue.JsonString("\"\\/\b\f\n\r\t\u00e9\ud83d\ude80"));
  }
}
