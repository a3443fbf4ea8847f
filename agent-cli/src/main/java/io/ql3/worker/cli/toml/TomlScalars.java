package io.ql3.worker.cli.toml;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * TOML's unquoted values: booleans, integers (decimal, {@code 0x}, {@code 0o}, {@code 0b}, with
 * underscores between digits), floats (including {@code inf} and {@code nan}) and dates and times.
 * Integers are {@link Long} (beyond its range is an error), floats {@link Double}, dates and times
 * the text as written, checked for shape and range.
 */
final class TomlScalars {
  /** Compiled when a document first holds a date or a time (few do). */
  private static final class DatePatterns {
    static final Pattern DATE_TIME =
        Pattern.compile(
            "(\\d{4})-(\\d{2})-(\\d{2})"
                + "(?:[Tt ](\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d+)?(?:[Zz]|[+-](\\d{2}):(\\d{2}))?)?");
    static final Pattern TIME = Pattern.compile("(\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d+)?");
  }

  private TomlScalars() {}

  /** The unquoted value at the cursor. */
  static Object read(TomlCursor in) throws TomlSyntaxException {
    int start = in.position();
    scanToken(in);
    // A date and a time may be separated by one space: "1979-05-27 07:32:00".
    if (in.position() - start == 10
        && in.peek() == ' '
        && isDigit(in.peek(1))
        && isDigit(in.peek(2))
        && in.peek(3) == ':') {
      in.advance();
      scanToken(in);
    }
    String t = in.since(start);
    if (t.isEmpty()) {
      throw in.error("expected a value, found " + in.describeNext());
    }
    try {
      return classify(t);
    } catch (IllegalArgumentException e) {
      throw in.errorAt(start, "invalid value '" + t + "': " + e.getMessage());
    }
  }

  private static void scanToken(TomlCursor in) {
    int c;
    while ((c = in.peek()) != TomlCursor.EOF
        && (Character.isLetterOrDigit(c) && c < 0x80
            || c == '_'
            || c == '+'
            || c == '-'
            || c == '.'
            || c == ':')) {
      in.advance();
    }
  }

  private static Object classify(String t) {
    switch (t) {
      case "true":
        return Boolean.TRUE;
      case "false":
        return Boolean.FALSE;
      case "inf":
      case "+inf":
        return Double.POSITIVE_INFINITY;
      case "-inf":
        return Double.NEGATIVE_INFINITY;
      case "nan":
      case "+nan":
      case "-nan":
        return Double.NaN;
      default:
        break;
    }
    if (looksLikeDateOrTime(t)) {
      return dateOrTime(t);
    }
    return number(t);
  }

  /** Starts as a date ({@code 1979-}) or a time ({@code 07:}) does; no number does. */
  private static boolean looksLikeDateOrTime(String t) {
    if (t.length() < 8 || !isDigit(t.charAt(0)) || !isDigit(t.charAt(1))) {
      return false;
    }
    return t.charAt(2) == ':'
        || (isDigit(t.charAt(2)) && isDigit(t.charAt(3)) && t.charAt(4) == '-');
  }

  private static Object number(String t) {
    boolean signed = t.charAt(0) == '+' || t.charAt(0) == '-';
    String body = signed ? t.substring(1) : t;
    if (body.length() > 1 && body.charAt(0) == '0' && "xob".indexOf(body.charAt(1)) >= 0) {
      if (signed) {
        throw new IllegalArgumentException("a hexadecimal, octal or binary integer has no sign");
      }
      int radix = body.charAt(1) == 'x' ? 16 : body.charAt(1) == 'o' ? 8 : 2;
      return integer(t, digits(body.substring(2), radix), radix);
    }
    int exp = indexOfAny(body, "eE");
    int dot = body.indexOf('.');
    if (exp < 0 && dot < 0) {
      return integer(t, (signed ? t.substring(0, 1) : "") + decimalDigits(body), 10);
    }
    int intEnd = dot >= 0 ? dot : exp;
    StringBuilder f = new StringBuilder(t.length());
    f.append(signed ? t.charAt(0) : "").append(decimalDigits(body.substring(0, intEnd)));
    if (dot >= 0) {
      if (exp >= 0 && exp < dot) {
        throw new IllegalArgumentException("an exponent before the fraction");
      }
      f.append('.').append(digits(body.substring(dot + 1, exp < 0 ? body.length() : exp), 10));
    }
    if (exp >= 0) {
      String e = body.substring(exp + 1);
      boolean expSigned = !e.isEmpty() && (e.charAt(0) == '+' || e.charAt(0) == '-');
      f.append('e').append(expSigned ? e.substring(0, 1) : "");
      f.append(digits(expSigned ? e.substring(1) : e, 10));
    }
    return Double.parseDouble(f.toString());
  }

  private static Long integer(String t, String digits, int radix) {
    try {
      return Long.parseLong(digits, radix);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("out of the range of 64-bit signed integers");
    }
  }

  /** Decimal digits of an integer or a float's integer part: no leading zero. */
  private static String decimalDigits(String s) {
    String d = digits(s, 10);
    if (d.length() > 1 && d.charAt(0) == '0') {
      throw new IllegalArgumentException("leading zeros are not allowed");
    }
    return d;
  }

  /**
   * The digits of {@code s} in {@code radix} without their underscores, each of which must stand
   * between two digits.
   */
  private static String digits(String s, int radix) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("digits missing");
    }
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '_') {
        if (i == 0 || i == s.length() - 1 || s.charAt(i - 1) == '_') {
          throw new IllegalArgumentException("an underscore must stand between two digits");
        }
      } else if (c < 0x80 && Character.digit(c, radix) >= 0) {
        out.append(c);
      } else {
        throw new IllegalArgumentException("not a number, a boolean, a date or a time");
      }
    }
    return out.toString();
  }

  private static String dateOrTime(String t) {
    Matcher m = DatePatterns.DATE_TIME.matcher(t);
    if (m.matches()) {
      int year = Integer.parseInt(m.group(1));
      int month = range(m.group(2), 1, 12);
      range(m.group(3), 1, daysIn(month, year));
      if (m.group(4) != null) {
        time(m.group(4), m.group(5), m.group(6));
      }
      if (m.group(7) != null) {
        range(m.group(7), 0, 23);
        range(m.group(8), 0, 59);
      }
      return t;
    }
    m = DatePatterns.TIME.matcher(t);
    if (m.matches()) {
      time(m.group(1), m.group(2), m.group(3));
      return t;
    }
    throw new IllegalArgumentException("not a valid date or time");
  }

  private static void time(String hour, String minute, String second) {
    range(hour, 0, 23);
    range(minute, 0, 59);
    range(second, 0, 60); // 60: a leap second
  }

  private static int range(String digits, int min, int max) {
    int v = Integer.parseInt(digits);
    if (v < min || v > max) {
      throw new IllegalArgumentException("not a valid date or time");
    }
    return v;
  }

  private static int daysIn(int month, int year) {
    return switch (month) {
      case 2 -> (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
      case 4, 6, 9, 11 -> 30;
      default -> 31;
    };
  }

  private static int indexOfAny(String s, String chars) {
    for (int i = 0; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }
}
