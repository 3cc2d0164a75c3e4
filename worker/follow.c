/*  follow.c - which master the worker's link talks to (issue 17): with a
    list of masters (libcore/masters.h), the next URL after a silent or
    unanswering master, the leader a standby names, and the fencing of
    messages from an older leader's epoch (protocol.md sections 4 and 7,
    high-availability.md "Clients").  link.c calls it; it calls nothing
    of the worker. */
#include "config.h"

#include "libcore/clock.h"
#include "libcore/masters.h"
#include "libcore/proto.h"
#include "worker/worker.h"

const char *
worker_master_url (const worker_t *w)
{
    return hearth_masters_current (w->masters);
}

void
worker_follow_next (worker_t *w, const char *why)
{
    hearth_masters_move_on (w->masters, why);
}

/* The leader a standby names: at once the first time since the last
   registration, then at back-off, so that standbys naming each other
   cannot spin the worker; with no leader named, the next master, at
   back-off. */
void
worker_follow_standby (worker_t *w, const hearth_msg_t *msg)
{
    int64_t now = hearth_mono_ms ();
    if (w->registered)
        w->next_attempt_ms = now + (w->backoff_ms = w->interval_ms);
    w->registered = false;
    w->unanswered = false; /* it answered; the next attempt is elsewhere */
    if (hearth_masters_standby (w->masters, msg->body, w->log_limit, now)
        && w->leader_hops++ == 0)
        w->next_attempt_ms = now;
}

bool
worker_follow_fence (worker_t *w, const hearth_msg_t *msg)
{
    return hearth_masters_admit (w->masters, msg, w->log_limit,
                                 hearth_mono_ms ());
}
