package io.ql3.worker.capacity;

import io.ql3.worker.journal.Journal;
import io.ql3.worker.journal.JournalFacts;

/** What the oracle reads from the journal: its status, its durable facts and its free space. */
public interface JournalView {
    Journal.Status status();

    JournalFacts facts();

    long usableSpaceBytes();

    static JournalView of(Journal journal) {
        return new JournalView() {
            @Override
            public Journal.Status status() {
                return journal.status();
            }

            @Override
            public JournalFacts facts() {
                return journal.facts();
            }

            @Override
            public long usableSpaceBytes() {
                return journal.usableSpace();
            }
        };
    }
}
