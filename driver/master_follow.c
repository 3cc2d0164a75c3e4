/*  master_follow.c - which master the driver's link talks to (issue
    17): with a list of masters (libcore/masters.h), the next URL after a
    silent or unanswering master, the leader a standby names, and the
    fencing of messages from an older leader's epoch (protocol.md
    sections 4 and 7, high-availability.md "Clients").  master.c calls
    it; it calls nothing of the driver. */
#include "config.h"

#include "driver/master_int.h"
#include "libcore/clock.h"

const char *
master_link_url (const master_link_t *self)
{
    return hearth_masters_current (self->masters);
}

void
master_follow_next (master_link_t *self, const char *why)
{
    hearth_masters_move_on (self->masters, why);
}

/* To the leader at once the first time since the last registration, then
   at back-off, so that standbys naming each other cannot spin the link;
   to the next master, at back-off, when it names none.  The jobs go on. */
void
master_follow_standby (master_link_t *self, const hearth_msg_t *msg)
{
    int64_t now = hearth_mono_ms ();
    if (self->linked) {
        self->linked = false;
        self->lost_ms = now;
        self->backoff_ms = self->hb_interval_ms;
        self->next_attempt_ms = now + self->backoff_ms;
    }
    self->unanswered = false; /* it answered: the next one is elsewhere */
    self->reopen = true;
    if (hearth_masters_standby (self->masters, msg->body, self->log_limit, now)
        && self->leader_hops++ == 0)
        self->next_attempt_ms = now;
}

bool
master_follow_fence (master_link_t *self, const hearth_msg_t *msg)
{
    return hearth_masters_admit (self->masters, msg, self->log_limit,
                                 hearth_mono_ms ());
}
