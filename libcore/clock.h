/*  clock.h - the one monotonic clock of every Hearth program.

    Deadlines, heartbeats and liveness are judged on CLOCK_MONOTONIC, which
    no change of the wall clock moves.  Wall-clock times (event stamps,
    journal records) use time() or zclock_time() where they are made.
*/
#ifndef HEARTH_CLOCK_H
#define HEARTH_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic milliseconds (an arbitrary origin, fixed for the boot). */
static inline int64_t
hearth_mono_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Monotonic microseconds, same origin. */
static inline int64_t
hearth_mono_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
