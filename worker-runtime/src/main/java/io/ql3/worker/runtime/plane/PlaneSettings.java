package io.ql3.worker.runtime.plane;

import java.nio.file.Path;
import java.time.Duration;

/**
 * @param workDir base of every run's work directory and output log
 * @param pullPage most offers asked for in one pull (the profile's page)
 * @param longPoll {@code waitMs} of a parked pull over h2 (http/1.1 never parks: 0)
 * @param retryBase first delay before retrying a pull or a completion
 * @param retryMax longest such delay
 * @param keptLogs how many output logs of settled runs are kept for operators
 */
public record PlaneSettings(
    Path workDir,
    int pullPage,
    Duration longPoll,
    Duration retryBase,
    Duration retryMax,
    int keptLogs) {}
