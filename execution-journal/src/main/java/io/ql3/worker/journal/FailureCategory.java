package io.ql3.worker.journal;

/** Whether a failed run may be retried by the server. */
public enum FailureCategory implements DiskCode {
    TRANSIENT(0),
    PERMANENT(1);

    private final byte code;

    FailureCategory(int code) {
        this.code = (byte) code;
    }

    @Override
    public byte code() {
        return code;
    }
}
