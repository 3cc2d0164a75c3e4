/*  peak.h - the executor's peak memory so far, as its driver's accounting
    reports it (issue 16): its worker's cgroup's own figure when the
    executor runs confined in one (issue 15: the group's sum at its
    highest), else the larger of its own and its largest reaped child's
    maximum resident set (getrusage: what a worker's wait4 would give).
*/
#ifndef HEARTH_EXECUTOR_PEAK_H
#define HEARTH_EXECUTOR_PEAK_H

#include <stdint.h>

/* Bytes, or -1 when nothing could be read. */
int64_t peak_rss_bytes (void);

#endif
