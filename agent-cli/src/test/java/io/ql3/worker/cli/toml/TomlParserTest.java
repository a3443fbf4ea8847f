package io.ql3.worker.cli.toml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TomlParser} against hand-picked TOML 1.0.0 documents: each valid one is checked against an
 * explicit expected tree (key order and value types included) and against Jackson's reading; each
 * invalid one must be refused with a {@link TomlSyntaxException} pointing at a sensible line. Where
 * Jackson and the spec disagree the spec wins, and the case says so.
 */
class TomlParserTest {

  // ---------------------------------------------------------------- helpers

  /** An expected table: alternating keys and values, in document order. */
  static Map<String, Object> table(Object... keysAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static List<Object> array(Object... values) {
    return new ArrayList<>(Arrays.asList(values));
  }

  /** Our parser yields exactly {@code expected} (order and types included), and so does Jackson. */
  private static void assertParses(String toml, Map<String, Object> expected) throws Exception {
    assertOursParses(toml, expected);
    assertThat(JacksonOracle.show(JacksonOracle.parse(toml)))
        .as("Jackson's reading of:%n%s", toml)
        .isEqualTo(JacksonOracle.show(expected));
  }

  /** Our parser yields exactly {@code expected}; for cases where Jackson differs from the spec. */
  private static Map<String, Object> assertOursParses(String toml, Map<String, Object> expected)
      throws Exception {
    Map<String, Object> ours = TomlParser.parse(toml);
    assertThat(JacksonOracle.show(ours))
        .as("TomlParser's reading of:%n%s", toml)
        .isEqualTo(JacksonOracle.show(expected));
    assertThat(ours).isEqualTo(expected);
    assertTreeShape(ours);
    return ours;
  }

  /** Only the documented node types: LinkedHashMap, List, String, Long, Double, Boolean. */
  private static void assertTreeShape(Object node) {
    if (node instanceof Map<?, ?> m) {
      assertThat(m).isInstanceOf(LinkedHashMap.class);
      m.values().forEach(TomlParserTest::assertTreeShape);
    } else if (node instanceof List<?> l) {
      l.forEach(TomlParserTest::assertTreeShape);
    } else {
      assertThat(node).isInstanceOfAny(String.class, Long.class, Double.class, Boolean.class);
    }
  }

  // ---------------------------------------------------------------- documents, comments, layout

  @ParameterizedTest
  @ValueSource(strings = {"", "\n", "\r\n", "# only a comment", "  \t\n# a\n\n   # b\r\n\t"})
  void documentsWithoutKeyValuesAreEmptyTables(String toml) throws Exception {
    assertParses(toml, table());
  }

  @Test
  void commentsMayFollowAnyLineAndHoldAnyNonControlText() throws Exception {
    String toml =
        "# leading comment: \"quotes\" 'apostrophes' # hashes = [x] é 😀 and a\ttab\n"
            + "a = 1 # trailing\n"
            + "[t] # after a header\n"
            + "b = \"# not a comment\" # a real one\n"
            + "[[x]] # after an array-of-tables header\n"
            + "c = [ # inside an array\n"
            + "  1, # after an element\n"
            + "  # on its own line\n"
            + "  2,\n"
            + "] # after the array\n"
            + "#no space\n"
            + "d = 'x'#tight\n"
            + "# last line without newline";
    assertParses(
        toml,
        table(
            "a",
            1L,
            "t",
            table("b", "# not a comment"),
            "x",
            array(table("c", array(1L, 2L), "d", "x"))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a = 1", "a = 1 # comment", "a = 1\t", "a = 1\n", "a = 1\r\n"})
  void theLastLineNeedsNoNewline(String toml) throws Exception {
    assertParses(toml, table("a", 1L));
  }

  @Test
  void whitespaceAroundKeysEqualsSignsAndHeaderPartsIsInsignificant() throws Exception {
    String toml =
        "a=1\n"
            + "\tb\t=\t2\n"
            + "  c   =   3  \n"
            + "[ t ]\n"
            + "  d = 4\n"
            + "[ v . w ]\n"
            + "[[ u ]]\n"
            + "\t[[ u ]]\n"
            + "e = 5\n";
    assertParses(
        toml,
        table(
            "a",
            1L,
            "b",
            2L,
            "c",
            3L,
            "t",
            table("d", 4L),
            "v",
            table("w", table()),
            "u",
            array(table(), table("e", 5L))));
  }

  @Test
  void crlfLineEndingsWorkEverywhere() throws Exception {
    String toml =
        "# comment\r\n"
            + "a = 1\r\n"
            + "\r\n"
            + "[t]\r\n"
            + "b = [\r\n  1,\r\n  2,\r\n]\r\n"
            + "[[u]]\r\n"
            + "c = { d = 'e' } # c\r\n";
    assertParses(
        toml,
        table("a", 1L, "t", table("b", array(1L, 2L)), "u", array(table("c", table("d", "e")))));
  }

  // ---------------------------------------------------------------- keys

  @Test
  void bareKeysMayLookLikeNumbersBooleansAndSpecialFloats() throws Exception {
    String toml =
        "1234 = 1\n"
            + "true = 2\n"
            + "false = 3\n"
            + "inf = 4\n"
            + "nan = 5\n"
            + "-_- = 6\n"
            + "0x1 = 7\n"
            + "A-z_9 = 8\n"
            + "1.2 = 9\n";
    assertParses(
        toml,
        table(
            "1234",
            1L,
            "true",
            2L,
            "false",
            3L,
            "inf",
            4L,
            "nan",
            5L,
            "-_-",
            6L,
            "0x1",
            7L,
            "A-z_9",
            8L,
            "1",
            table("2", 9L)));
  }

  @Test
  void quotedKeysMayHoldEscapesDotsSpacesOrNothing() throws Exception {
    String toml =
        "\"a\\tb\" = 1\n"
            + "'x.y' = 2\n"
            + "\"p.q\".r = 3\n"
            + "\"\" = 4\n"
            + "\"\\u00e9\\U0001F600\" = 5\n"
            + "'C:\\temp' = 6\n"
            + "\"ʎǝʞ\" = 7\n"
            + "\"quote\\\"d\" = 8\n"
            + "'key with spaces' = 9\n";
    assertParses(
        toml,
        table(
            "a\tb",
            1L,
            "x.y",
            2L,
            "p.q",
            table("r", 3L),
            "",
            4L,
            "é😀",
            5L,
            "C:\\temp",
            6L,
            "ʎǝʞ",
            7L,
            "quote\"d",
            8L,
            "key with spaces",
            9L));
  }

  @Test
  void bareAndQuotedSpellingsOfAKeyNameTheSameTable() throws Exception {
    assertParses(
        "a.'b'.\"c\" = 1\n\"a\".b.d = 2\n[a.\"b\".e]\nf = 3\n",
        table("a", table("b", table("c", 1L, "d", 2L, "e", table("f", 3L)))));
  }

  @Test
  void dottedKeysCreateAndExtendNestedTablesInDocumentOrder() throws Exception {
    String toml =
        "name = \"Orange\"\n"
            + "physical.color = \"orange\"\n"
            + "physical.shape = \"round\"\n"
            + "site.\"google.com\" = true\n"
            + "fruit . flavor  =  \"sweet\"\n"
            + "apple.type = \"fruit\"\n"
            + "orange.type = \"fruit\"\n"
            + "apple.skin = \"thin\"\n"
            + "apple.taste.sweet = true\n";
    assertParses(
        toml,
        table(
            "name",
            "Orange",
            "physical",
            table("color", "orange", "shape", "round"),
            "site",
            table("google.com", true),
            "fruit",
            table("flavor", "sweet"),
            "apple",
            table("type", "fruit", "skin", "thin", "taste", table("sweet", true)),
            "orange",
            table("type", "fruit")));
  }

  // ---------------------------------------------------------------- tables

  @Test
  void tableHeadersMayUseQuotedAndSpacedKeyParts() throws Exception {
    String toml =
        "[ a . \"b c\" . 'd' ]\nx = 1\n[j.\"ʞ\".'l']\ny = 2\n[\"dog.tater\".man]\nz = 3\n";
    assertParses(
        toml,
        table(
            "a",
            table("b c", table("d", table("x", 1L))),
            "j",
            table("ʞ", table("l", table("y", 2L))),
            "dog.tater",
            table("man", table("z", 3L))));
  }

  @Test
  void aSuperTableMayBeDefinedAfterItsSubTables() throws Exception {
    assertParses(
        "[x.y.z.w]\na = 1\n[x.y]\nc = 3\n[x]\nb = 2\n",
        table("x", table("y", table("z", table("w", table("a", 1L)), "c", 3L), "b", 2L)));
  }

  @Test
  void tablesMayBeDeclaredOutOfOrder() throws Exception {
    assertParses(
        "[fruit.apple]\n[animal]\n[fruit.orange]\n",
        table("fruit", table("apple", table(), "orange", table()), "animal", table()));
  }

  @Test
  void subTablesMayBeAddedUnderTablesMadeByDottedKeys() throws Exception {
    String toml =
        "[fruit]\n"
            + "apple.color = \"red\"\n"
            + "apple.taste.sweet = true\n"
            + "[fruit.apple.texture]\n"
            + "smooth = true\n";
    assertParses(
        toml,
        table(
            "fruit",
            table(
                "apple",
                table(
                    "color",
                    "red",
                    "taste",
                    table("sweet", true),
                    "texture",
                    table("smooth", true)))));
  }

  @Test
  void specExampleDocument() throws Exception {
    String toml =
        """
        # This is a TOML document

        title = "TOML Example"

        [owner]
        name = "Tom Preston-Werner"
        dob = 1979-05-27T07:32:00-08:00

        [database]
        enabled = true
        ports = [ 8000, 8001, 8002 ]
        data = [ ["delta", "phi"], [3.14] ]
        temp_targets = { cpu = 79.5, case = 72.0 }

        [servers]

        [servers.alpha]
        ip = "10.0.0.1"
        role = "frontend"

        [servers.beta]
        ip = "10.0.0.2"
        role = "backend"
        """;
    assertParses(
        toml,
        table(
            "title",
            "TOML Example",
            "owner",
            table("name", "Tom Preston-Werner", "dob", "1979-05-27T07:32:00-08:00"),
            "database",
            table(
                "enabled",
                true,
                "ports",
                array(8000L, 8001L, 8002L),
                "data",
                array(array("delta", "phi"), array(3.14)),
                "temp_targets",
                table("cpu", 79.5, "case", 72.0)),
            "servers",
            table(
                "alpha",
                table("ip", "10.0.0.1", "role", "frontend"),
                "beta",
                table("ip", "10.0.0.2", "role", "backend"))));
  }

  // ---------------------------------------------------------------- arrays of tables

  @Test
  void arraysOfTablesAppendElementsThatCarryTheirSubTables() throws Exception {
    String toml =
        """
        [[fruits]]
        name = "apple"

        [fruits.physical]  # subtable
        color = "red"
        shape = "round"

        [[fruits.varieties]]  # nested array of tables
        name = "red delicious"

        [[fruits.varieties]]
        name = "granny smith"


        [[fruits]]
        name = "banana"

        [[fruits.varieties]]
        name = "plantain"
        """;
    assertParses(
        toml,
        table(
            "fruits",
            array(
                table(
                    "name",
                    "apple",
                    "physical",
                    table("color", "red", "shape", "round"),
                    "varieties",
                    array(table("name", "red delicious"), table("name", "granny smith"))),
                table("name", "banana", "varieties", array(table("name", "plantain"))))));
  }

  @Test
  void emptyArrayOfTablesElementsAreEmptyTables() throws Exception {
    assertParses(
        "[[a]]\n[[a]]\nb = 1\n[[a]]\n", table("a", array(table(), table("b", 1L), table())));
  }

  @Test
  void arraysOfTablesNestInsideTablesAndTheirLastElement() throws Exception {
    String toml = "[a]\n[[a.b]]\n[a.b.c]\nd = 1\n[[a.b]]\ne = 2\n[[a.b.f]]\n";
    assertParses(
        toml,
        table(
            "a",
            table("b", array(table("c", table("d", 1L)), table("e", 2L, "f", array(table()))))));
  }

  @Test
  void eachArrayElementMayDefineTheSameSubTableOnce() throws Exception {
    assertParses(
        "[[a]]\n[a.b]\nx = 1\n[[a]]\n[a.b]\nx = 2\n",
        table("a", array(table("b", table("x", 1L)), table("b", table("x", 2L)))));
  }

  // ---------------------------------------------------------------- inline tables and arrays

  @Test
  void inlineTablesHoldAnyValuesIncludingDottedKeys() throws Exception {
    String toml =
        "name = { first = \"Tom\", last = \"Preston-Werner\" }\n"
            + "point = {x=1,y=2}\n"
            + "animal = { type.name = \"pug\" }\n"
            + "empty = {}\n"
            + "spaced = {   }\n"
            + "nested = { a = { b = { c = [1, { d = true }] } }, \"q k\" = 'v' }\n"
            + "shared = { b.c = 1, b.d = 2 }\n";
    assertParses(
        toml,
        table(
            "name",
            table("first", "Tom", "last", "Preston-Werner"),
            "point",
            table("x", 1L, "y", 2L),
            "animal",
            table("type", table("name", "pug")),
            "empty",
            table(),
            "spaced",
            table(),
            "nested",
            table("a", table("b", table("c", array(1L, table("d", true)))), "q k", "v"),
            "shared",
            table("b", table("c", 1L, "d", 2L))));
  }

  @Test
  void arraysMayMixTypesNestAndSpanLinesWithCommentsAndATrailingComma() throws Exception {
    String toml =
        """
        integers = [ 1, 2, 3 ]
        colors = [ "red", "yellow", "green" ]
        nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]
        nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
        string_array = [ "all", 'strings', \"""are the same\""", '''type''' ]
        numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]
        contributors = [
          "Foo Bar <foo@example.com>",
          { name = "Baz Qux", email = "bazqux@example.com" }
        ]
        integers2 = [
          1, 2, 3
        ]
        integers3 = [
          1,
          2, # this is ok
        ]
        empty = [ ]
        empty2 = [
        ]
        tables = [ {}, { a = [] }, [ {} ] ]
        """;
    assertParses(
        toml,
        table(
            "integers",
            array(1L, 2L, 3L),
            "colors",
            array("red", "yellow", "green"),
            "nested_arrays_of_ints",
            array(array(1L, 2L), array(3L, 4L, 5L)),
            "nested_mixed_array",
            array(array(1L, 2L), array("a", "b", "c")),
            "string_array",
            array("all", "strings", "are the same", "type"),
            "numbers",
            array(0.1, 0.2, 0.5, 1L, 2L, 5L),
            "contributors",
            array(
                "Foo Bar <foo@example.com>",
                table("name", "Baz Qux", "email", "bazqux@example.com")),
            "integers2",
            array(1L, 2L, 3L),
            "integers3",
            array(1L, 2L),
            "empty",
            array(),
            "empty2",
            array(),
            "tables",
            array(table(), table("a", array()), array(table()))));
  }

  @Test
  void valuesInsideInlineTablesMaySpanLinesWhereTheValueAllows() throws Exception {
    // "No newlines are allowed between the curly braces unless they are valid within a value."
    assertParses(
        "a = { b = [\n  1, # c\n  2\n], c = \"\"\"x\ny\"\"\" }\n",
        table("a", table("b", array(1L, 2L), "c", "x\ny")));
  }

  @Test
  void headerSubTablesMayHangBelowDottedKeyTablesAtTheRoot() throws Exception {
    assertParses(
        "a.b.c = 1\n[a.b.d]\ne = 2\n", table("a", table("b", table("c", 1L, "d", table("e", 2L)))));
  }

  // ---------------------------------------------------------------- strings

  @Test
  void basicStringsDecodeEveryEscape() throws Exception {
    assertParses(
        "s = \"\\b\\t\\n\\f\\r\\\"\\\\\\u00E9\\U0001F600\\u0000 \\u001F \\u007F \\u00e9\"\n",
        table("s", "\b\t\n\f\r\"\\é😀\u0000 \u001F \u007F é"));
  }

  @Test
  void unicodeEscapesBeyondTheBmpBecomeSurrogatePairs() throws Exception {
    assertParses(
        "a = \"\\U0001F600\"\nb = \"\\U0010FFFF\"\nc = \"\\uFFFF\\uE000\\u0080\"\n",
        table(
            "a",
            new String(Character.toChars(0x1F600)),
            "b",
            new String(Character.toChars(0x10FFFF)),
            "c",
            "\uFFFF\uE000\u0080"));
  }

  @Test
  void rawTabsAndNonAsciiTextAreAllowedInEveryStringForm() throws Exception {
    assertParses(
        "a = \"x\ty é\"\nb = 'x\ty é'\nc = \"\"\"x\ty é\"\"\"\nd = '''x\ty é'''\n",
        table("a", "x\ty é", "b", "x\ty é", "c", "x\ty é", "d", "x\ty é"));
  }

  @Test
  void literalStringsKeepBackslashesAndQuotesVerbatim() throws Exception {
    String toml =
        "winpath = 'C:\\Users\\nodejs\\templates'\n"
            + "winpath2 = '\\\\ServerX\\admin$\\system32\\'\n"
            + "quoted = 'Tom \"Dubs\" Preston-Werner'\n"
            + "regex = '<\\i\\c*\\s*>'\n"
            + "empty = ''\n";
    assertParses(
        toml,
        table(
            "winpath",
            "C:\\Users\\nodejs\\templates",
            "winpath2",
            "\\\\ServerX\\admin$\\system32\\",
            "quoted",
            "Tom \"Dubs\" Preston-Werner",
            "regex",
            "<\\i\\c*\\s*>",
            "empty",
            ""));
  }

  @Test
  void multiLineBasicStringsTrimTheFirstNewlineAndJoinBackslashEndedLines() throws Exception {
    String toml =
        "str1 = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n"
            + "str2 = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"\n"
            + "str3 = \"\"\"\\\n       The quick brown \\\n       fox jumps over \\\n"
            + "       the lazy dog.\\\n       \"\"\"\n"
            + "str4 = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n"
            + "str5 = \"\"\"Here are three quotation marks: \"\"\\\".\"\"\"\n"
            + "str6 = \"\"\"Here are fifteen quotation marks: "
            + "\"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\"\"\"\\\".\"\"\"\n"
            + "str7 = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n"
            + "str8 = \"\"\"backslash, then spaces \\   \t\n  \t continues\"\"\"\n"
            + "str9 = \"\"\"\n\"\"\"\n"
            + "str10 = \"\"\"\n\n\"\"\"\n"
            + "str11 = \"\"\"a\\tb\\u00e9 \\\\ \\\"\"\"\"\n"
            + "str12 = \"\"\"two quotes at the end\"\"\"\"\"\n";
    assertParses(
        toml,
        table(
            "str1",
            "Roses are red\nViolets are blue",
            "str2",
            "The quick brown fox jumps over the lazy dog.",
            "str3",
            "The quick brown fox jumps over the lazy dog.",
            "str4",
            "Here are two quotation marks: \"\". Simple enough.",
            "str5",
            "Here are three quotation marks: \"\"\".",
            "str6",
            "Here are fifteen quotation marks: " + "\"".repeat(15) + ".",
            "str7",
            "\"This,\" she said, \"is just a pointless statement.\"",
            "str8",
            "backslash, then spaces continues",
            "str9",
            "",
            "str10",
            "\n",
            "str11",
            "a\tbé \\ \"",
            "str12",
            "two quotes at the end\"\""));
  }

  @Test
  void multiLineLiteralStringsTrimTheFirstNewlineAndKeepEverythingElse() throws Exception {
    String toml =
        "regex2 = '''I [dw]on't need \\d{2} apples'''\n"
            + "lines  = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n"
            + "   is preserved.\n'''\n"
            + "quot15 = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\n"
            + "apos15 = \"Here are fifteen apostrophes: '''''''''''''''\"\n"
            + "str = ''''That,' she said, 'is still pointless.''''\n"
            + "bs = '''no \\\njoin'''\n"
            + "empty = ''''''\n";
    assertParses(
        toml,
        table(
            "regex2",
            "I [dw]on't need \\d{2} apples",
            "lines",
            "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n"
                + "   is preserved.\n",
            "quot15",
            "Here are fifteen quotation marks: " + "\"".repeat(15),
            "apos15",
            "Here are fifteen apostrophes: " + "'".repeat(15),
            "str",
            "'That,' she said, 'is still pointless.'",
            "bs",
            "no \\\njoin",
            "empty",
            ""));
  }

  @Test
  void multiLineStringsAcceptCrlfNewlines() throws Exception {
    String toml =
        "a = \"\"\"\r\nx\r\ny\"\"\"\r\n"
            + "b = \"\"\"x\\\r\n  \r\n  y\"\"\"\r\n"
            + "c = '''\r\nz'''\r\n"
            + "d = '''\r\nx\r\ny'''\r\n";
    Map<String, Object> ours = TomlParser.parse(toml);
    assertThat(ours).containsEntry("b", "xy").containsEntry("c", "z");
    // The spec lets a parser normalize a newline inside a multi-line string to its platform's
    // newline, so either spelling is right; Jackson keeps the CRLF.
    assertThat(ours.get("a")).isIn("x\r\ny", "x\ny");
    assertThat(ours.get("d")).isIn("x\r\ny", "x\ny");
    assertThat(JacksonOracle.parse(toml))
        .isEqualTo(table("a", "x\r\ny", "b", "xy", "c", "z", "d", "x\r\ny"));
  }

  // ---------------------------------------------------------------- numbers and booleans

  @Test
  void decimalIntegersAcceptSignsUnderscoresAndTheWholeLongRange() throws Exception {
    String toml =
        "a = +99\nb = 42\nc = 0\nd = -17\ne = +0\nf = -0\ng = 1_000\nh = 5_349_221\n"
            + "i = 53_49_221\nj = 1_2_3_4_5\nmax = 9223372036854775807\n"
            + "min = -9223372036854775808\nmax2 = 9_223_372_036_854_775_807\n";
    assertParses(
        toml,
        table(
            "a",
            99L,
            "b",
            42L,
            "c",
            0L,
            "d",
            -17L,
            "e",
            0L,
            "f",
            0L,
            "g",
            1000L,
            "h",
            5349221L,
            "i",
            5349221L,
            "j",
            12345L,
            "max",
            Long.MAX_VALUE,
            "min",
            Long.MIN_VALUE,
            "max2",
            Long.MAX_VALUE));
  }

  @Test
  void hexOctalAndBinaryIntegersAcceptUnderscoresLeadingZerosAndEitherHexCase() throws Exception {
    String toml =
        "hex1 = 0xDEADBEEF\nhex2 = 0xdeadbeef\nhex3 = 0xdead_beef\nhex4 = 0x00_ff\n"
            + "oct1 = 0o01234567\noct2 = 0o755\nbin1 = 0b11010110\nbin2 = 0b0000_0001\n"
            + "zero = 0x0\nhexmax = 0x7FFFFFFFFFFFFFFF\noctmax = 0o777777777777777777777\n"
            + "binmax = 0b"
            + "1".repeat(63)
            + "\n";
    assertParses(
        toml,
        table(
            "hex1",
            0xDEADBEEFL,
            "hex2",
            0xDEADBEEFL,
            "hex3",
            0xDEADBEEFL,
            "hex4",
            255L,
            "oct1",
            01234567L,
            "oct2",
            0755L,
            "bin1",
            0b11010110L,
            "bin2",
            1L,
            "zero",
            0L,
            "hexmax",
            Long.MAX_VALUE,
            "octmax",
            Long.MAX_VALUE,
            "binmax",
            Long.MAX_VALUE));
  }

  @Test
  void floatsAcceptFractionsExponentsAndUnderscoresBetweenDigits() throws Exception {
    String toml =
        "f1 = +1.0\nf2 = 3.1415\nf3 = -0.01\nf4 = 5e+22\nf5 = 1e06\nf6 = -2E-2\n"
            + "f7 = 6.626e-34\nf8 = 224_617.445_991_228\nf9 = 1e1_0\nf10 = 0.0\nf11 = +0.0\n"
            + "f12 = 1.7976931348623157e308\nf13 = 5e-324\nf14 = 0e0\nf15 = 1_0.0_1e0_1\n"
            + "f16 = 0.1\nf17 = 1E2\nf18 = 123.456e-2\n";
    assertParses(
        toml,
        table(
            "f1",
            1.0,
            "f2",
            3.1415,
            "f3",
            -0.01,
            "f4",
            5e22,
            "f5",
            1e6,
            "f6",
            -2e-2,
            "f7",
            6.626e-34,
            "f8",
            224617.445991228,
            "f9",
            1e10,
            "f10",
            0.0,
            "f11",
            0.0,
            "f12",
            Double.MAX_VALUE,
            "f13",
            Double.MIN_VALUE,
            "f14",
            0.0,
            "f15",
            100.1,
            "f16",
            0.1,
            "f17",
            100.0,
            "f18",
            1.23456));
  }

  @Test
  void floatsShapedLikeDatesAreStillFloats() throws Exception {
    // Five characters then a dash, as in 1979-05-27: the value is a float all the same.
    assertParses(
        "a = 4.9e-324\nb = 1.1e-100\nc = 2.5e-308\nd = 1234e-5\ne = [1.5e-100]\n",
        table("a", 4.9e-324, "b", 1.1e-100, "c", 2.5e-308, "d", 0.01234, "e", array(1.5e-100)));
  }

  @Test
  void infinitiesAndNansMayBeSigned() throws Exception {
    assertParses(
        "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\ng = [inf, nan]\n",
        table(
            "a",
            Double.POSITIVE_INFINITY,
            "b",
            Double.POSITIVE_INFINITY,
            "c",
            Double.NEGATIVE_INFINITY,
            "d",
            Double.NaN,
            "e",
            Double.NaN,
            "f",
            Double.NaN,
            "g",
            array(Double.POSITIVE_INFINITY, Double.NaN)));
  }

  @Test
  void negativeZeroFloatKeepsItsSign() throws Exception {
    Map<String, Object> ours =
        assertOursParses("a = -0.0\nb = -0e0\n", table("a", -0.0, "b", -0.0));
    assertThat(Double.doubleToRawLongBits((Double) ours.get("a")))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
    // Jackson reads finite floats as BigDecimal, which has no negative zero: it yields +0.0.
    assertThat(JacksonOracle.parse("a = -0.0\n")).isEqualTo(table("a", 0.0));
  }

  @Test
  void booleansAreLowercaseWords() throws Exception {
    assertParses("t = true\nf = false\n", table("t", true, "f", false));
  }

  // ---------------------------------------------------------------- date-times

  @Test
  void dateTimesAreKeptAsTheTextWritten() throws Exception {
    String toml =
        """
        odt1 = 1979-05-27T07:32:00Z
        odt2 = 1979-05-27T00:32:00-07:00
        odt3 = 1979-05-27T00:32:00.999999-07:00
        odt4 = 1979-05-27T07:32:00.5+05:30
        odt5 = 1979-05-27T07:32:00.123456789123Z
        ldt1 = 1979-05-27T07:32:00
        ldt2 = 1979-05-27T00:32:00.999999
        ld1 = 1979-05-27
        lt1 = 07:32:00
        lt2 = 00:32:00.999999
        leapday = 2000-02-29
        leapsecond = 1990-12-31T23:59:60Z
        inarray = [1979-05-27, 07:32:00, 1979-05-27T07:32:00Z]
        ininline = { d = 2024-12-31 }
        """;
    assertParses(
        toml,
        table(
            "odt1",
            "1979-05-27T07:32:00Z",
            "odt2",
            "1979-05-27T00:32:00-07:00",
            "odt3",
            "1979-05-27T00:32:00.999999-07:00",
            "odt4",
            "1979-05-27T07:32:00.5+05:30",
            "odt5",
            "1979-05-27T07:32:00.123456789123Z",
            "ldt1",
            "1979-05-27T07:32:00",
            "ldt2",
            "1979-05-27T00:32:00.999999",
            "ld1",
            "1979-05-27",
            "lt1",
            "07:32:00",
            "lt2",
            "00:32:00.999999",
            "leapday",
            "2000-02-29",
            "leapsecond",
            "1990-12-31T23:59:60Z",
            "inarray",
            array("1979-05-27", "07:32:00", "1979-05-27T07:32:00Z"),
            "ininline",
            table("d", "2024-12-31")));
  }

  @Test
  void dateTimesMayBeFollowedBySpacesAndComments() throws Exception {
    assertParses(
        "a = 1979-05-27 # c\nb = 1979-05-27T07:32:00Z # c\nc = 07:32:00\t\nd = [1979-05-27,07:32:00]\n",
        table(
            "a",
            "1979-05-27",
            "b",
            "1979-05-27T07:32:00Z",
            "c",
            "07:32:00",
            "d",
            array("1979-05-27", "07:32:00")));
  }

  @Test
  void aSpaceBetweenDateAndTimeIsKeptAsWritten() throws Exception {
    String toml = "odt = 1979-05-27 07:32:00Z\nldt = 1979-05-27 07:32:00.5\n";
    assertOursParses(toml, table("odt", "1979-05-27 07:32:00Z", "ldt", "1979-05-27 07:32:00.5"));
    // Jackson rewrites the space to a T.
    assertThat(JacksonOracle.parse(toml))
        .isEqualTo(table("odt", "1979-05-27T07:32:00Z", "ldt", "1979-05-27T07:32:00.5"));
  }

  @Test
  void lowercaseTAndZDelimitersAreValid() throws Exception {
    // The spec's ABNF strings are case-insensitive ("T", "Z"), and RFC 3339 allows t and z.
    String toml = "a = 1979-05-27t07:32:00z\nb = 1979-05-27t07:32:00\n";
    assertOursParses(toml, table("a", "1979-05-27t07:32:00z", "b", "1979-05-27t07:32:00"));
    // Jackson is stricter than the spec here.
    assertThat(JacksonOracle.rejects(toml)).isTrue();
  }

  // ---------------------------------------------------------------- invalid documents

  /**
   * An invalid document: what it breaks, its text, whether Jackson also refuses it, and the line(s)
   * where an error is sensible.
   */
  static Arguments bad(String what, String toml, boolean jacksonRejects, int... lines) {
    return Arguments.of(what, toml, jacksonRejects, lines);
  }

  static final boolean JACKSON_REJECTS = true;

  /** Jackson accepts this although TOML 1.0.0 forbids it. */
  static final boolean JACKSON_LENIENT = false;

  static Stream<Arguments> invalidDocuments() {
    return Stream.of(
        // --- keys and key/value pairs
        bad("duplicate key", "a = 1\nb = 2\na = 3", JACKSON_REJECTS, 3),
        bad("duplicate key spelled bare then quoted", "a = 1\n\"a\" = 2", JACKSON_REJECTS, 2),
        bad("duplicate key spelled literal then basic", "'a' = 1\n\"a\" = 2", JACKSON_REJECTS, 2),
        bad("duplicate key via a unicode escape", "\"\\u00e9\" = 1\n\"é\" = 2", JACKSON_REJECTS, 2),
        bad("duplicate key inside a table", "[t]\nx = 1\nx = 2", JACKSON_REJECTS, 3),
        bad("duplicate key inside an inline table", "a = { b = 1, b = 2 }", JACKSON_REJECTS, 1),
        bad("key without a value", "a =", JACKSON_REJECTS, 1),
        bad("key without a value before a comment", "a = # nothing", JACKSON_REJECTS, 1),
        bad("key without a value before the next line", "a =\nb = 1", JACKSON_REJECTS, 1, 2),
        bad("bare key without an equals sign", "a", JACKSON_REJECTS, 1),
        bad("equals sign on the next line", "a\n= 1", JACKSON_REJECTS, 1, 2),
        bad("value without a key", "= 1", JACKSON_REJECTS, 1),
        bad("key with an inner space", "a b = 1", JACKSON_REJECTS, 1),
        bad("key with a character outside A-Za-z0-9_-", "a$ = 1", JACKSON_REJECTS, 1),
        bad("multi-line string as a key", "\"\"\"a\"\"\" = 1", JACKSON_REJECTS, 1),
        bad("dotted key ending in a dot", "a. = 1", JACKSON_REJECTS, 1),
        bad("dotted key with an empty part", "a..b = 1", JACKSON_REJECTS, 1),
        bad("two key/values on one line", "a = 1 b = 2", JACKSON_REJECTS, 1),
        bad("two strings as one value", "a = \"a\" \"b\"", JACKSON_REJECTS, 1),
        bad("two literal strings as one value", "a = 'a' 'b'", JACKSON_REJECTS, 1),
        bad("garbage after a value on a later line", "a = 1\nb = 2 3", JACKSON_REJECTS, 2),
        bad("unquoted word as a value", "a = abc", JACKSON_REJECTS, 1),
        bad("capitalized boolean", "a = True", JACKSON_REJECTS, 1),
        // --- table headers
        bad("table defined twice", "[a]\nx = 1\n[a]\ny = 2", JACKSON_REJECTS, 3),
        bad("table defined twice, once quoted", "[a]\n[\"a\"]", JACKSON_REJECTS, 2),
        bad("empty table defined twice", "[a]\n[a]", JACKSON_REJECTS, 2),
        bad("super table defined again after a sub table", "[a]\n[a.b]\n[a]", JACKSON_REJECTS, 3),
        bad("header followed by a key on the same line", "[a] b = 1", JACKSON_REJECTS, 1),
        bad("array header followed by a key", "[[a]] b = 1", JACKSON_REJECTS, 1),
        bad("header ending in a dot", "[a.]", JACKSON_REJECTS, 1),
        bad("header starting with a dot", "[.a]", JACKSON_REJECTS, 1),
        bad("empty header", "[]", JACKSON_REJECTS, 1),
        bad("header with an inner space", "[a b]", JACKSON_REJECTS, 1),
        bad("unterminated header", "[a\nb = 1", JACKSON_REJECTS, 1),
        bad("unterminated array header", "[[a]\nb = 1", JACKSON_REJECTS, 1),
        bad("array header with split closing brackets", "[[a] ]", JACKSON_REJECTS, 1),
        bad("array header with split opening brackets", "[ [a]]", JACKSON_REJECTS, 1),
        bad("header over a value", "a = 1\n[a]", JACKSON_REJECTS, 2),
        bad("header through a value", "[a]\nb = 1\n[a.b.c]", JACKSON_REJECTS, 3),
        bad("array of tables over a table", "[a]\n[[a]]", JACKSON_REJECTS, 2),
        bad("table over an array of tables", "[[a]]\n[a]", JACKSON_REJECTS, 2),
        bad("array of tables over a static array", "a = []\n[[a]]", JACKSON_REJECTS, 2),
        bad(
            "array of tables over a static array of inline tables",
            "a = [{ b = 1 }]\n[[a]]",
            JACKSON_REJECTS,
            2),
        bad("array of tables over a nested array", "x = [[1]]\n[[x]]", JACKSON_REJECTS, 2),
        bad(
            "sub table of a static array of inline tables",
            "a = [{ b = 1 }]\n[a.c]",
            JACKSON_REJECTS,
            2),
        bad("same sub table twice in one array element", "[[a]]\n[a.b]\n[a.b]", JACKSON_REJECTS, 3),
        // --- dotted keys versus headers
        bad(
            "header for a table made by dotted keys",
            "[fruit]\napple.color = \"red\"\n[fruit.apple]",
            JACKSON_REJECTS,
            3),
        bad(
            "header for a nested table made by dotted keys",
            "[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]",
            JACKSON_REJECTS,
            3),
        bad("header for a root table made by dotted keys", "a.b = 1\n[a]", JACKSON_REJECTS, 2),
        bad("header over a dotted-key value", "a.b = 1\n[a.b]", JACKSON_REJECTS, 2),
        // Jackson is lenient: it lets dotted keys add to a table a [header] already defined.
        bad(
            "dotted keys extending a header-defined table",
            "[a.b]\nx = 1\n[a]\nb.y = 2",
            JACKSON_LENIENT,
            4),
        bad(
            "dotted keys extending a header-defined nested table",
            "[a.b.c]\nz = 9\n[a]\nb.c.t = 1",
            JACKSON_LENIENT,
            4),
        bad(
            "dotted keys extending a header-defined table from its parent header",
            "[a.b.c]\nz = 9\n[a.b]\nc.t = 1",
            JACKSON_LENIENT,
            4),
        bad(
            "array of tables over a table made implicitly in an array element",
            "[[a]]\n[a.b.c]\n[[a.b]]",
            JACKSON_REJECTS,
            3),
        bad("array of tables over an implicit table", "[a.b]\n[[a]]", JACKSON_REJECTS, 2),
        bad("inline table over a dotted-key table", "a.b = 1\na = { c = 2 }", JACKSON_REJECTS, 2),
        bad("dotted key into a static array", "a = [{}]\na.b = 1", JACKSON_REJECTS, 2),
        bad("dotted key through a value", "a.b = 1\na.b.c = 2", JACKSON_REJECTS, 2),
        bad("value over a dotted-key table", "a.b.c = 1\na.b = 2", JACKSON_REJECTS, 2),
        bad("dotted key over a value in a table", "[t]\na = 1\na.b = 2", JACKSON_REJECTS, 3),
        // --- inline tables
        bad("header extending an inline table", "a = { b = 1 }\n[a]", JACKSON_REJECTS, 2),
        bad("sub table of an inline table", "a = { b = 1 }\n[a.c]", JACKSON_REJECTS, 2),
        bad("header extending an empty inline table", "a = {}\n[a]", JACKSON_REJECTS, 2),
        bad("dotted key extending an inline table", "a = { b = 1 }\na.c = 2", JACKSON_REJECTS, 2),
        bad(
            "dotted key extending an inline table inside an inline table",
            "a = { b = { c = 1 }, b.d = 2 }",
            JACKSON_REJECTS,
            1),
        bad(
            "sub table of a nested inline table",
            "[a]\nb = { c = 1 }\n[a.b.d]",
            JACKSON_REJECTS,
            3),
        bad("inline table with a trailing comma", "a = { b = 1, }", JACKSON_REJECTS, 1),
        bad("inline table over two lines", "a = { b = 1,\nc = 2 }", JACKSON_REJECTS, 1, 2),
        bad("inline table with a newline before }", "a = { b = 1\n}", JACKSON_REJECTS, 1, 2),
        bad("inline table without commas", "a = { b = 1 c = 2 }", JACKSON_REJECTS, 1),
        bad("inline table with only a comma", "a = { , }", JACKSON_REJECTS, 1),
        bad("unterminated inline table", "a = { b = 1", JACKSON_REJECTS, 1),
        // --- arrays
        bad("array without a comma", "a = [1 2]", JACKSON_REJECTS, 1),
        bad("array with only a comma", "a = [,]", JACKSON_REJECTS, 1),
        bad("array with a double comma", "a = [1,,2]", JACKSON_REJECTS, 1),
        bad("array with a leading comma", "a = [,1]", JACKSON_REJECTS, 1),
        bad("unterminated array", "a = [1, 2\nb = 3", JACKSON_REJECTS, 1, 2),
        // --- strings
        bad("unknown escape", "a = \"\\q\"", JACKSON_REJECTS, 1),
        bad("escape \\e (TOML 1.1 only)", "a = \"\\e\"", JACKSON_REJECTS, 1),
        bad("escape \\x (TOML 1.1 only)", "a = \"\\x41\"", JACKSON_REJECTS, 1),
        bad("escaped space", "a = \"\\ \"", JACKSON_REJECTS, 1),
        bad("short \\u escape", "a = \"\\u00\"", JACKSON_REJECTS, 1),
        bad("non-hex \\u escape", "a = \"\\u00ZZ\"", JACKSON_REJECTS, 1),
        bad("short \\U escape", "a = \"\\U0001F60\"", JACKSON_REJECTS, 1),
        // Jackson is lenient: it decodes surrogate code points, which are not Unicode scalar
        // values, into lone surrogates.
        bad("\\u escape of a high surrogate", "a = \"\\uD800\"", JACKSON_LENIENT, 1),
        bad("\\u escape of a low surrogate", "a = \"\\uDFFF\"", JACKSON_LENIENT, 1),
        bad("\\U escape of a surrogate", "a = \"\\U0000D800\"", JACKSON_LENIENT, 1),
        bad("\\U escape beyond U+10FFFF", "a = \"\\U00110000\"", JACKSON_REJECTS, 1),
        bad("escape in a key", "\"\\q\" = 1", JACKSON_REJECTS, 1),
        bad("backslash and space not ending a line", "a = \"\"\"x\\ y\"\"\"", JACKSON_REJECTS, 1),
        bad("unterminated basic string", "a = \"abc", JACKSON_REJECTS, 1),
        bad("unterminated literal string", "a = 'abc", JACKSON_REJECTS, 1),
        bad("basic string ending in an escaped quote", "a = \"abc\\\"", JACKSON_REJECTS, 1),
        bad(
            "unterminated multi-line basic string",
            "a = \"\"\"abc\n\ndef",
            JACKSON_REJECTS,
            1,
            2,
            3),
        bad(
            "unterminated multi-line literal string",
            "a = '''abc\n\ndef",
            JACKSON_REJECTS,
            1,
            2,
            3),
        bad("newline in a basic string", "a = \"x\ny\"", JACKSON_REJECTS, 1, 2),
        bad("newline in a literal string", "a = 'x\ny'", JACKSON_REJECTS, 1, 2),
        bad(
            "six quotes closing a multi-line basic string",
            "a = \"\"\"a\"\"\"\"\"\"", //
            JACKSON_REJECTS,
            1),
        bad("nine quotes", "a = \"\"\"\"\"\"\"\"\"", JACKSON_REJECTS, 1),
        bad(
            "six apostrophes closing a multi-line literal string",
            "a = '''a''''''", //
            JACKSON_REJECTS,
            1),
        // --- control characters
        bad("control character in a basic string", "a = \"x\u0001y\"", JACKSON_REJECTS, 1),
        bad("DEL in a basic string", "a = \"x\u007Fy\"", JACKSON_REJECTS, 1),
        bad("NUL in a literal string", "a = 'x\u0000y'", JACKSON_REJECTS, 1),
        bad("control character in a key", "\"a\u0008\" = 1", JACKSON_REJECTS, 1),
        bad(
            "escape character in a multi-line string",
            "a = \"\"\"x\u001By\"\"\"", //
            JACKSON_REJECTS,
            1),
        bad(
            "control character in a multi-line literal",
            "a = '''x\u0002y'''", //
            JACKSON_REJECTS,
            1),
        bad("control character in a comment", "a = 1 # bell \u0007", JACKSON_REJECTS, 1),
        bad("DEL in a comment", "# \u007F\na = 1", JACKSON_REJECTS, 1),
        bad("lone carriage return after a value", "a = 1\rb = 2", JACKSON_REJECTS, 1),
        bad("lone carriage return at the end", "a = 1\r", JACKSON_REJECTS, 1),
        bad("lone carriage return in a comment", "# x\ry\na = 1", JACKSON_REJECTS, 1),
        bad(
            "lone carriage return in a multi-line string",
            "a = \"\"\"x\ry\"\"\"", //
            JACKSON_REJECTS,
            1),
        bad("control character between tokens", "a =\u0001 1", JACKSON_REJECTS, 1),
        // --- integers
        bad("leading zero", "a = 01", JACKSON_REJECTS, 1),
        bad("negative leading zero", "a = -01", JACKSON_REJECTS, 1),
        bad("positive leading zero", "a = +01", JACKSON_REJECTS, 1),
        bad("double underscore", "a = 1__2", JACKSON_REJECTS, 1),
        bad("leading underscore", "a = _1", JACKSON_REJECTS, 1),
        bad("trailing underscore", "a = 1_", JACKSON_REJECTS, 1),
        bad("underscore after a sign", "a = +_1", JACKSON_REJECTS, 1),
        bad("underscore after a zero", "a = 0_0", JACKSON_REJECTS, 1),
        bad("underscore after a prefix", "a = 0x_1", JACKSON_REJECTS, 1),
        bad("double underscore in hex", "a = 0x1__2", JACKSON_REJECTS, 1),
        bad("uppercase hex prefix", "a = 0X1", JACKSON_REJECTS, 1),
        bad("uppercase binary prefix", "a = 0B1", JACKSON_REJECTS, 1),
        bad("uppercase octal prefix", "a = 0O7", JACKSON_REJECTS, 1),
        bad("signed hex", "a = +0x1", JACKSON_REJECTS, 1),
        bad("negative hex", "a = -0x1", JACKSON_REJECTS, 1),
        bad("prefix without digits", "a = 0b", JACKSON_REJECTS, 1),
        bad("octal digit 8", "a = 0o8", JACKSON_REJECTS, 1),
        bad("binary digit 2", "a = 0b2", JACKSON_REJECTS, 1),
        bad("hex digit G", "a = 0xG", JACKSON_REJECTS, 1),
        bad("sign without digits", "a = +", JACKSON_REJECTS, 1),
        // Jackson is lenient: it reads integers beyond 64 bits as BigInteger.
        bad("2^63", "a = 9223372036854775808", JACKSON_LENIENT, 1),
        bad("-(2^63)-1", "a = -9223372036854775809", JACKSON_LENIENT, 1),
        bad("huge integer", "a = 99999999999999999999999999", JACKSON_LENIENT, 1),
        bad("hex 2^63", "a = 0x8000000000000000", JACKSON_LENIENT, 1),
        bad("octal 2^63", "a = 0o1000000000000000000000", JACKSON_LENIENT, 1),
        bad("binary 2^64-1", "a = 0b" + "1".repeat(64), JACKSON_LENIENT, 1),
        // --- floats
        bad("float without fraction digits", "a = 1.", JACKSON_REJECTS, 1),
        bad("float without integer digits", "a = .1", JACKSON_REJECTS, 1),
        bad("signed float without integer digits", "a = +.1", JACKSON_REJECTS, 1),
        bad("exponent without digits", "a = 1e", JACKSON_REJECTS, 1),
        bad("signed exponent without digits", "a = 1e+", JACKSON_REJECTS, 1),
        bad("dot before the exponent", "a = 1.e1", JACKSON_REJECTS, 1),
        bad("two exponents", "a = 1.5e3.2", JACKSON_REJECTS, 1),
        bad("double e", "a = 1ee2", JACKSON_REJECTS, 1),
        bad("leading zero in a float", "a = 00.5", JACKSON_REJECTS, 1),
        bad("leading zero in a float with exponent", "a = 01e2", JACKSON_REJECTS, 1),
        bad("underscore before the dot", "a = 1_.0", JACKSON_REJECTS, 1),
        bad("underscore after the dot", "a = 1._0", JACKSON_REJECTS, 1),
        bad("underscore before the exponent", "a = 1_e1", JACKSON_REJECTS, 1),
        bad("underscore after the exponent", "a = 1e_1", JACKSON_REJECTS, 1),
        bad("trailing underscore in a fraction", "a = 1.0_", JACKSON_REJECTS, 1),
        bad("capitalized inf", "a = Inf", JACKSON_REJECTS, 1),
        bad("capitalized nan", "a = NaN", JACKSON_REJECTS, 1),
        bad("infinity spelled out", "a = infinity", JACKSON_REJECTS, 1),
        bad("nan with a suffix", "a = nan_", JACKSON_REJECTS, 1),
        bad("inf with a fraction", "a = inf.0", JACKSON_REJECTS, 1),
        // --- date-times
        bad(
            "date-time without seconds (TOML 1.1 only)",
            "a = 1979-05-27T07:32", //
            JACKSON_REJECTS,
            1),
        bad("time without seconds (TOML 1.1 only)", "a = 07:32", JACKSON_REJECTS, 1),
        bad("one-digit month", "a = 1979-5-27", JACKSON_REJECTS, 1),
        bad("one-digit hour", "a = 7:32:00", JACKSON_REJECTS, 1),
        bad("offset on a local time", "a = 07:32:00Z", JACKSON_REJECTS, 1),
        bad("empty fraction", "a = 2000-01-01T00:00:00.Z", JACKSON_REJECTS, 1),
        bad("one-digit offset hour", "a = 1979-05-27T07:32:00+8:00", JACKSON_REJECTS, 1),
        bad("garbage after an offset", "a = 1979-05-27T07:32:00Zx", JACKSON_REJECTS, 1),
        bad("T without a time", "a = 1979-05-27T", JACKSON_REJECTS, 1),
        bad("time with an empty fraction", "a = 07:32:00.", JACKSON_REJECTS, 1),
        bad("space before an offset", "a = 1979-05-27T07:32:00 -08:00", JACKSON_REJECTS, 1),
        bad("date with a trailing underscore", "a = 1979-05-27_", JACKSON_REJECTS, 1),
        bad("date and hour only", "a = 1979-05-27 07", JACKSON_REJECTS, 1),
        // Jackson is lenient: it does not check the ranges of date and time fields.
        bad("month 13", "a = 1979-13-01", JACKSON_LENIENT, 1),
        bad("month 00", "a = 1979-00-01", JACKSON_LENIENT, 1),
        bad("day 00", "a = 1979-01-00", JACKSON_LENIENT, 1),
        bad("day 32", "a = 1979-01-32", JACKSON_LENIENT, 1),
        bad("February 30", "a = 1979-02-30", JACKSON_LENIENT, 1),
        bad("February 29 in a common year", "a = 2021-02-29", JACKSON_LENIENT, 1),
        bad("February 29 in a common century year", "a = 1900-02-29", JACKSON_LENIENT, 1),
        bad("hour 24", "a = 24:00:00", JACKSON_LENIENT, 1),
        bad("hour 25 in a date-time", "a = 1979-05-27T25:00:00", JACKSON_LENIENT, 1),
        bad("minute 60", "a = 1979-05-27T07:60:00", JACKSON_LENIENT, 1),
        bad("second 61", "a = 1979-05-27T07:32:61", JACKSON_LENIENT, 1),
        bad("offset hour 24", "a = 1979-05-27T07:32:00+24:00", JACKSON_LENIENT, 1),
        bad("offset minute 60", "a = 1979-05-27T07:32:00+01:60", JACKSON_LENIENT, 1),
        // --- errors later in a longer document get their own line
        bad(
            "duplicate key deep in a document",
            "# header\n\n[a]\nx = 1\n\n[b]\ny = \"\"\"\n\n\"\"\"\n[a]\n",
            JACKSON_REJECTS,
            10),
        bad("bad value after CRLF lines", "a = 1\r\nb = 2\r\nc = 01\r\n", JACKSON_REJECTS, 3));
  }

  @Test
  void aTableMadeOnlyAsAHeadersParentIsDefinedByDottedKeysOfItsParentsSection() throws Exception {
    // The case TOML 1.0.0 leaves open (toml-lang/toml#846), decided in TomlTables' javadoc.
    Map<String, Object> tree = TomlParser.parse("[a.b.c]\nz = 9\n[a]\nb.d = 1\n");
    assertThat(tree).isEqualTo(Map.of("a", Map.of("b", Map.of("c", Map.of("z", 9L), "d", 1L))));
    assertThatThrownBy(() -> TomlParser.parse("[a.b.c]\nz = 9\n[a]\nb.d = 1\n[a.b]\n"))
        .isInstanceOf(TomlSyntaxException.class)
        .hasMessage("line 5, column 1: [a.b]: already defined as a table");
  }

  @Test
  void errorMessagesSayWhatAndWhereInCharactersAndQuoteWhatWouldNotPrint() {
    assertThat(catchThrowable(() -> TomlParser.parse("a = \"\"\"abc\n\n\n")))
        .hasMessage("line 4, column 1: unterminated multi-line string (opened on line 1)");
    assertThat(catchThrowable(() -> TomlParser.parse("a = [\n1,\n")))
        .hasMessage("line 3, column 1: unterminated array (opened on line 1)");
    assertThat(catchThrowable(() -> TomlParser.parse("a = { b = 1, }")))
        .hasMessage("line 1, column 14: an inline table ends without a comma after its last pair");
    assertThat(catchThrowable(() -> TomlParser.parse("a = \"x\\q\"")))
        .hasMessage("line 1, column 8: invalid escape: a backslash before 'q'");
    assertThat(catchThrowable(() -> TomlParser.parse("a = \"\uD83D\uDE00\uD83D\uDE00\" b")))
        .hasMessage("line 1, column 10: expected the end of the line, found 'b'");
    assertThat(catchThrowable(() -> TomlParser.parse("a = \uD83D\uDE00")))
        .hasMessageEndingWith("found '\uD83D\uDE00'");
    assertThat(catchThrowable(() -> TomlParser.parse("\"x\\u001b[2J\" = 1\n\"x\\u001b[2J\" = 2")))
        .hasMessage("line 2, column 1: \"x\\u001B[2J\" is defined twice");
    assertThat(catchThrowable(() -> TomlParser.parse("\"\"\"a\"\"\" = 1")))
        .hasMessage("line 1, column 1: a key cannot be a multi-line string");
  }

  @Test
  void nestingAndKeyPartsAreBoundedSoThatNoDocumentExhaustsTheStack() throws Exception {
    int max = TomlParser.MAX_NESTING;
    assertThat(TomlParser.parse("a = " + "[".repeat(max) + "]".repeat(max))).containsKey("a");
    assertThat(TomlParser.parse("a = " + "{b = ".repeat(max - 1) + "{}" + "}".repeat(max - 1)))
        .containsKey("a");
    assertThatThrownBy(() -> TomlParser.parse("a = " + "[".repeat(200_000)))
        .isInstanceOf(TomlSyntaxException.class)
        .hasMessageContaining("nested more than " + max);
    assertThatThrownBy(() -> TomlParser.parse("a = " + "{b = ".repeat(200_000)))
        .isInstanceOf(TomlSyntaxException.class)
        .hasMessageContaining("nested more than " + max);
    String longest = String.join(".", Collections.nCopies(TomlParser.MAX_KEY_PARTS, "k"));
    assertThat(TomlParser.parse(longest + " = 1\n[" + longest + "x]\n")).containsKey("k");
    for (String doc :
        List.of(longest + ".k = 1", "[" + longest + ".k]", "a = {" + longest + ".k = 1}")) {
      assertThatThrownBy(() -> TomlParser.parse(doc))
          .isInstanceOf(TomlSyntaxException.class)
          .hasMessageContaining("more than " + TomlParser.MAX_KEY_PARTS + " parts");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidDocuments")
  void invalidDocumentsAreRefusedWithTheirLine(
      String what, String toml, boolean jacksonRejects, int[] lines) {
    Throwable thrown = catchThrowable(() -> TomlParser.parse(toml));
    assertThat(thrown)
        .as("TomlParser on %s:%n%s%nreturned instead", what, toml)
        .isInstanceOf(TomlSyntaxException.class);
    TomlSyntaxException e = (TomlSyntaxException) thrown;
    assertThat(e.line())
        .as("line of: %s", e.getMessage())
        .isIn(Arrays.stream(lines).boxed().toArray());
    String[] textLines = toml.split("\r\n|\n", -1);
    assertThat(e.column())
        .as("column of: %s", e.getMessage())
        .isBetween(1, textLines[e.line() - 1].length() + 1);
    assertThat(e.getMessage()).startsWith("line " + e.line() + ", column " + e.column() + ": ");
    assertThat(e.getMessage().length())
        .isGreaterThan(("line " + e.line() + ", column " + e.column() + ": ").length());
    if (jacksonRejects) {
      // The case's own check: an independent parser refuses it too. (Where Jackson is lenient the
      // case stands on the specification alone; a stricter Jackson is no failure of ours.)
      assertThat(JacksonOracle.rejects(toml)).as("whether Jackson rejects %s", what).isTrue();
    }
  }
}
