package io.ql3.worker.runtime.config;

import io.ql3.worker.contract.Capability;
import io.ql3.worker.contract.WorkerId;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the {@code [worker]} table: the worker id and the {@code [worker.labels]} table.
 *
 * <p>Errors ({@link ConfigException}): {@code worker.id} missing, not a string or not a valid
 * worker id ({@link WorkerId#PATTERN}); a label key not matching {@link
 * Capability#LABEL_KEY_PATTERN}; a label value that is not a string, is longer than {@link
 * Capability#MAX_LABEL_VALUE_CHARS} characters or contains NUL; more than {@link
 * Capability#MAX_LABELS} labels; an unknown key in {@code [worker.labels]}.
 */
final class WorkerReader {
  private static final int MAX_LABELS = Capability.MAX_LABELS;
  private static final int MAX_LABEL_VALUE_CODE_POINTS = Capability.MAX_LABEL_VALUE_CHARS;

  private WorkerReader() {}

  /** {@code worker.id}, checked against {@link WorkerId#PATTERN}. */
  static String id(ConfigTable worker) throws ConfigException {
    String workerId = worker.requiredString("id");
    if (!WorkerId.isValid(workerId)) {
      throw worker.error(
          "id", "'" + workerId + "' is not a valid worker id (" + WorkerId.PATTERN + ")");
    }
    return workerId;
  }

  /** {@code [worker.labels]}, sorted by key; the table is finished (its unknown keys refused). */
  static Map<String, String> labels(ConfigTable worker) throws ConfigException {
    ConfigTable labels = worker.optionalTable("labels");
    Map<String, String> out = new TreeMap<>();
    for (String key : labels.keys()) {
      if (!Capability.isValidLabelKey(key)) {
        throw labels.error(key, "label key does not match " + Capability.LABEL_KEY_PATTERN);
      }
      String value = labels.requiredString(key);
      if (value.codePointCount(0, value.length()) > MAX_LABEL_VALUE_CODE_POINTS) {
        throw labels.error(
            key, "label value is longer than " + MAX_LABEL_VALUE_CODE_POINTS + " characters");
      }
      if (value.indexOf('\0') >= 0) {
        throw labels.error(key, "label value contains NUL");
      }
      out.put(key, value);
    }
    if (out.size() > MAX_LABELS) {
      throw worker.error("labels", "at most " + MAX_LABELS + " labels (got " + out.size() + ")");
    }
    labels.finish();
    return out;
  }
}
