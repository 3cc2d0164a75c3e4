/*  starved.h - the driver's warning that its jobs wait with no executor
    at all, like Spark's "Initial job has not accepted any resources":
    once per such wait, after s_warning_ms, saying why the master says
    the application waits when it said (APPLICATION_WAITING: "the master
    says asks 64 GiB per executor; the largest worker offers 2 GiB
    (too_much_memory)"), else what to look at.

    A starved_t is a plain value in its owner (the engine), zeroed to
    start; nothing is allocated.
*/
#ifndef HEARTH_LIBHEARTH_STARVED_H
#define HEARTH_LIBHEARTH_STARVED_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t since_ms; /* jobs wait with no executor since (mono), or 0 */
    bool logged;      /* the warning was given for this wait */
} starved_t;

/* At now_ms (monotonic): waiting says whether jobs wait with no executor
   registered; master_says is why the master says the application waits
   ("REASON (CODE)", borrowed), or NULL.  Warns once per wait. */
void starved_check (starved_t *self, bool waiting, const char *master_says,
                    int64_t now_ms);

#endif
