package io.ql3.worker.journal;

/** How a run attempt left the journal's live set. */
public enum Settlement {
    /** The server accepted the completion. */
    ACKNOWLEDGED,
    /** The server already had this exact completion. */
    DUPLICATE,
    /** The server no longer leases this attempt to us (409 run_not_leased). */
    SUPERSEDED,
    /** An operator resolved it explicitly (recorded, never by deleting files). */
    OPERATOR_RESOLVED
}
