package io.ql3.worker.journal;

/** Status of the worker's session as recorded locally. */
public enum SessionStatus implements DiskCode {
    ACTIVE(0),
    DRAINING(1),
    OFFLINE(2);

    private final byte code;

    SessionStatus(int code) {
        this.code = (byte) code;
    }

    @Override
    public byte code() {
        return code;
    }
}
