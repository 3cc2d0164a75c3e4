/*  starved.c - the warning that jobs wait with no executor; see
    starved.h. */
#include "config.h"

#include "libcore/log.h"
#include "libhearth/starved.h"

/* Jobs waiting this long without any executor deserve a warning. */
static const int64_t s_warning_ms = 10000;

void
starved_check (starved_t *self, bool waiting, const char *master_says,
               int64_t now_ms)
{
    if (!waiting) {
        self->since_ms = 0;
        self->logged = false;
        return;
    }
    if (!self->since_ms)
        self->since_ms = now_ms;
    if (self->logged || now_ms - self->since_ms <= s_warning_ms)
        return;
    long long secs = (long long) (now_ms - self->since_ms) / 1000;
    if (master_says)
        log_warn ("no executor after %lld s: the master says %s", secs,
                  master_says);
    else
        log_warn ("no executor after %lld s: are workers registered with "
                  "the master, with enough free cores and memory for "
                  "executor-memory?",
                  secs);
    self->logged = true;
}
