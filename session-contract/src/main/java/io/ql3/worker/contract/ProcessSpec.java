package io.ql3.worker.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code process} executor spec: {@code argv} 1..256 strings of 1..4096 characters; {@code cwd}
 * null or a relative path inside the run's work directory (not empty, not absolute, no {@code ..}
 * segment, no backslash); {@code env} at most 128 names {@code ^[A-Za-z_][A-Za-z0-9_]{0,127}$} with
 * values of at most 4096 characters. No NUL anywhere.
 *
 * @param cwd null: the run's work directory itself
 */
public record ProcessSpec(List<String> argv, String cwd, Map<String, String> env)
    implements ExecutorSpec {
  public static final String EXECUTOR = "process";
  public static final int MAX_ARGV = 256;
  public static final int MAX_ARG_CHARS = 4096;
  public static final int MAX_ENV = 128;
  public static final int MAX_ENV_VALUE_CHARS = 4096;
  static final String[] NAMES = {"argv", "cwd", "env"};

  public ProcessSpec {
    argv = List.copyOf(Check.present(argv, "/argv"));
    if (argv.isEmpty() || argv.size() > MAX_ARGV) {
      throw Check.outOfRange("/argv", argv.size() + " argv items, expected 1.." + MAX_ARGV);
    }
    for (int i = 0; i < argv.size(); i++) {
      String p = "/argv/" + i;
      Check.noNul(Check.chars(argv.get(i), 1, MAX_ARG_CHARS, p), p);
    }
    if (cwd != null) {
      checkCwd(cwd);
    }
    Check.present(env, "/env");
    if (env.size() > MAX_ENV) {
      throw Check.outOfRange("/env", env.size() + " variables, at most " + MAX_ENV);
    }
    TreeMap<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      String name = Check.present(e.getKey(), "/env");
      String p = "/env/" + Obj.escape(name);
      Check.identifier(Patterns.envName(name), name, "environment variable name", p);
      Check.noNul(Check.chars(Check.present(e.getValue(), p), 0, MAX_ENV_VALUE_CHARS, p), p);
      sorted.put(name, e.getValue());
    }
    env = Collections.unmodifiableMap(sorted);
  }

  private static void checkCwd(String cwd) {
    Check.scalar(cwd, "/cwd");
    Check.noNul(cwd, "/cwd");
    if (cwd.isEmpty()) {
      throw Check.outOfRange("/cwd", "cwd is empty");
    }
    if (cwd.startsWith("/")) {
      throw Check.outOfRange("/cwd", "cwd is absolute");
    }
    if (cwd.indexOf('\\') >= 0) {
      throw Check.outOfRange("/cwd", "cwd holds a backslash");
    }
    for (String segment : cwd.split("/", -1)) {
      if (segment.equals("..")) {
        throw Check.outOfRange("/cwd", "cwd has a '..' segment");
      }
    }
  }

  @Override
  public String executor() {
    return EXECUTOR;
  }

  @Override
  public JsonValue.JsonObject toJson() {
    List<JsonValue> a = new ArrayList<>(argv.size());
    for (String s : argv) {
      a.add(new JsonValue.JsonString(s));
    }
    Map<String, JsonValue> e = new LinkedHashMap<>();
    env.forEach((k, v) -> e.put(k, new JsonValue.JsonString(v)));
    Map<String, JsonValue> m = new LinkedHashMap<>();
    m.put("argv", new JsonValue.JsonArray(a));
    m.put("cwd", cwd == null ? JsonValue.JsonNull.INSTANCE : new JsonValue.JsonString(cwd));
    m.put("env", new JsonValue.JsonObject(e));
    return new JsonValue.JsonObject(m);
  }

  static ProcessSpec read(Obj o) throws ContractViolation {
    List<JsonValue> av = o.array("argv");
    if (av.isEmpty() || av.size() > MAX_ARGV) {
      throw new ContractViolation(
          ViolationReason.OUT_OF_RANGE,
          "/argv",
          av.size() + " argv items, expected 1.." + MAX_ARGV);
    }
    List<String> argv = new ArrayList<>(av.size());
    for (int i = 0; i < av.size(); i++) {
      argv.add(Obj.stringElement(av.get(i), "/argv/" + i));
    }
    String cwd = o.nullableString("cwd");
    Obj eo = o.openObject("env");
    Map<String, String> env = new TreeMap<>();
    for (Map.Entry<String, JsonValue> e : eo.members().entrySet()) {
      env.put(e.getKey(), Obj.stringElement(e.getValue(), eo.at(e.getKey())));
    }
    try {
      return new ProcessSpec(argv, cwd, env);
    } catch (InvalidWireValueException e) {
      throw e.violation();
    }
  }
}
