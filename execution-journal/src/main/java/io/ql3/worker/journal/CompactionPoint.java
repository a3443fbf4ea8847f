package io.ql3.worker.journal;

/** Points inside compaction where tests inject a crash. */
enum CompactionPoint {
  SNAPSHOT_TEMP_WRITTEN,
  SNAPSHOT_TEMP_FORCED,
  SNAPSHOT_RENAMED,
  SNAPSHOT_DIR_SYNCED,
  NEW_SEGMENT_CREATED,
  OLD_FILE_DELETED,
  DONE
}
