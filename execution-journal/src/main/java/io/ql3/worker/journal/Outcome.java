package io.ql3.worker.journal;

/** Outcome of a run attempt, as reported in a completion. */
public enum Outcome implements DiskCode {
    SUCCEEDED(0),
    FAILED(1),
    CANCELLED(2),
    UNCERTAIN(3);

    private final byte code;

    Outcome(int code) {
        this.code = (byte) code;
    }

    @Override
    public byte code() {
        return code;
    }
}
