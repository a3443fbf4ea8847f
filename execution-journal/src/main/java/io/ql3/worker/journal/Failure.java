package io.ql3.worker.journal;

import java.util.Objects;
import java.util.regex.Pattern;

/** A structured failure: category, a stable code and a bounded message. */
public record Failure(FailureCategory category, String code, String message) {
    private static final Pattern CODE = Pattern.compile("^[a-z][a-z0-9_]{0,63}$");

    public Failure {
        Objects.requireNonNull(category, "category");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (!CODE.matcher(code).matches()) {
            throw new IllegalArgumentException("failure code must match " + CODE + ": " + code);
        }
        if (message.codePointCount(0, message.length()) > 1024) {
            throw new IllegalArgumentException("failure message over 1024 characters");
        }
    }
}
